/* SPDX-License-Identifier: MIT */
/*
 * test_contention.c — exactly one item per key when several writers work at
 * once, on the Secret Service:
 *
 *   - processes, and threads with handles of their own or a shared one,
 *     creating one new key together (each round a new key);
 *   - processes mixing kk_set, kk_remove and kk_get on a few shared keys;
 *   - our writers racing `secret-tool store` on a new key;
 *   - a write over duplicates another tool left behind, also for a key the
 *     handle remembers as having one item;
 *   - Python keyring's set_password beside our item (its replace matches
 *     only its own items), alone and racing our writers.
 *
 * What the header promises under contention is checked on every call:
 * kk_set returns KK_OK (never KK_EDUPLICATE, never KK_ENOTFOUND because
 * another writer removed the item), kk_remove KK_OK, kk_get KK_OK with a
 * whole value that some writer wrote, or KK_ENOTFOUND.
 *
 * Writers meet at a rendezvous (each has connected, then all start at once),
 * so that their searches all find the key absent before any create lands.
 */
#define _POSIX_C_SOURCE 200809L

#include "kt_fork.h"
#include "kt_keychain.h"
#include "kt_secret_service.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define WRITERS 4
#define CREATE_ROUNDS 20
#define RACE_ROUNDS 10
#define KEYRING_RACE_ROUNDS 8
#define MIXED_KEYS 3
#define MIXED_OPERATIONS 150

/** Why the tests of concurrent creates do not run on KeePassXC (2.7.4,
 *  measured with raw D-Bus calls under scripts/with-keepassxc.sh): it
 *  answers every CreateItem with a prompt, and of several creators'
 *  prompts at once it completes about one (6 of 24, 4 creators × 6 rounds,
 *  3 s each), so concurrent `secret-tool store`s hang, and `replace` is not
 *  atomic (2 items in 3 of 5 rounds of 4 concurrent secret-tool stores).
 *  Once, under this file's 4-process test, KeePassXC exited. */
#define KEEPASSXC_CONCURRENT_CREATES \
    "KeePassXC completes only one of several concurrent create prompts and its replace is not atomic"

/** Seconds a mixed writer may run, and the parent waits for it. */
#define MIXED_ALARM 90

/** How long a writer waits at the rendezvous. */
#define RENDEZVOUS_TIMEOUT_MS 15000

/* ---- rendezvous between processes --------------------------------------- */

/** Two pipes: each writer sends one byte on `ready` once connected, then
 *  reads one byte from `go`; the parent reads every ready byte and then
 *  writes every go byte at once. */
typedef struct rendezvous {
    int ready[2];
    int go[2];
} rendezvous;

static int rendezvous_open(rendezvous *r)
{
    if (pipe(r->ready) != 0) return 0;
    if (pipe(r->go) == 0) return 1;
    close(r->ready[0]);
    close(r->ready[1]);
    return 0;
}

/** In a writer: says it is ready and waits for the start; 1 on the start. */
static int rendezvous_arrive(rendezvous *r)
{
    close(r->ready[0]);
    close(r->go[1]);
    char byte = 'r';
    return kt_write_all(r->ready[1], &byte, 1) && kt_read_all(r->go[0], &byte, 1, RENDEZVOUS_TIMEOUT_MS);
}

/** In the parent: waits until `n` writers are ready, then starts them all;
 *  closes its ends either way. 1 when all were ready. */
static int rendezvous_start(rendezvous *r, int n)
{
    char bytes[WRITERS * 2] = {0};
    close(r->ready[1]);
    close(r->go[0]);
    int all_ready = n <= (int)sizeof bytes && kt_read_all(r->ready[0], bytes, (size_t)n, RENDEZVOUS_TIMEOUT_MS);
    if (all_ready) kt_write_all(r->go[1], bytes, (size_t)n);
    close(r->ready[0]);
    close(r->go[1]);
    return all_ready;
}

/* ---- values --------------------------------------------------------------- */

/** The value writer `writer` stores at its `step`-th write: a header naming
 *  both, then a filler whose letter and length depend on them, so that a
 *  value read back can be checked whole (not torn, not mixed). */
static void make_value(char *out, size_t size, int writer, int step)
{
    int n = snprintf(out, size, "writer %d step %d ", writer, step);
    size_t length = 40 + (size_t)((writer * 7 + step) % 60);
    char letter = (char)('a' + (writer * 31 + step) % 26);
    for (size_t i = (size_t)n; i < length && i + 1 < size; i++) out[i] = letter;
    out[length < size ? length : size - 1] = '\0';
}

/** Whether `value` (`len` bytes) is exactly some make_value(). */
static int is_whole_value(const char *value, size_t len)
{
    int writer, step;
    char want[128];
    if (len >= sizeof want || sscanf(value, "writer %d step %d ", &writer, &step) != 2) return 0;
    make_value(want, sizeof want, writer, step);
    return strlen(want) == len && memcmp(want, value, len) == 0;
}

/** Checks that kk_get finds a whole written value; writes it to `out`. */
static int check_whole_value(kk_keychain *kc, const char *svc, const char *account, char *out, size_t size)
{
    char *value = NULL;
    size_t len = 0;
    if (!CHECK_STATUS(kk_get(kc, svc, account, &value, &len), KK_OK)) return 0;
    int ok = CHECK(is_whole_value(value, len)) && CHECK(len < size);
    if (ok) {
        memcpy(out, value, len);
        out[len] = '\0';
    }
    kk_secret_free(value);
    return ok;
}

/** Checks that `account` of `svc` has exactly one item in the keyring. */
static int check_one_item(const char *svc, const char *account)
{
    int count = -1;
    return CHECK(kt_ss_count_items(svc, account, &count) == 0) && CHECK_EQ(count, 1);
}

/** A handle of the child's own, connected to the service (a first call made)
 *  before the rendezvous; NULL after a failed check. */
static kk_keychain *connected_handle(const char *svc)
{
    kk_keychain *kc = kt_open();
    if (!KT_CHILD(CHECK(kc != NULL))) return NULL;
    if (KT_CHILD(CHECK_STATUS(kk_exists(kc, svc, "nobody"), KK_ENOTFOUND))) return kc;
    kk_close(kc);
    return NULL;
}

/** A round's service: the test's, with the round number. */
static void round_service(char *out, size_t size, int round)
{
    snprintf(out, size, "%s.round%d", kt_service(), round);
}

/** The body of a writer process: meets the others at `r`, then writes to
 *  `svc`; its checks are KT_CHILD'd. `writer` numbers it among the
 *  WRITERS. */
typedef void (*writer_process)(rendezvous *r, const char *svc, int writer);

/** Forks WRITERS processes running `body` (each under alarm(seconds)),
 *  starts them together once all are connected, and checks that each ended
 *  well. */
static void run_writers(const char *svc, writer_process body, unsigned seconds, const char *what)
{
    rendezvous r;
    if (!CHECK(rendezvous_open(&r))) return;
    pid_t writers[WRITERS];
    for (int w = 0; w < WRITERS; w++) {
        writers[w] = kt_fork_with_alarm(seconds);
        if (writers[w] == 0) {
            body(&r, svc, w);
            kt_child_exit();
        }
    }
    CHECK(rendezvous_start(&r, WRITERS));
    for (int w = 0; w < WRITERS; w++) {
        if (writers[w] > 0) kt_check_child_at(__FILE__, __LINE__, writers[w], what, seconds + 10);
    }
}

/** Checks that kk_get and secret-tool read the same whole value of a key
 *  that has one item. */
static void check_tools_agree(kk_keychain *kc, const char *svc, const char *account)
{
    char ours[128], theirs[128];
    if (!check_whole_value(kc, svc, account, ours, sizeof ours)) return;
    /* On KWallet 5.103 (and ksecretd before KF 6.25) libsecret's session
     * key is wrong about one session in 256 (an unpadded short public key,
     * SERVERS-2026.md), and
     * secret-tool then prints garbage with exit 0: asked again there. */
    int attempts = kt_server_pads_no_key() ? 3 : 1;
    for (int attempt = 1; attempt <= attempts; attempt++) {
        if (!CHECK(kt_secret_tool_lookup(svc, account, theirs, sizeof theirs) == 0)) return;
        if (strcmp(theirs, ours) == 0 || attempt == attempts) break;
    }
    CHECK_STR_EQ(theirs, ours);
}

/** `rounds` rounds of WRITERS processes running `body` on a new key "key"
 *  each: after every round the key has one item, which kk_get and
 *  secret-tool read alike; no round may leave duplicates. */
static void check_rounds_leave_one_item(int rounds, writer_process body, const char *what)
{
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    int rounds_with_duplicates = 0;
    for (int round = 0; round < rounds; round++) {
        char svc[256];
        round_service(svc, sizeof svc, round);
        run_writers(svc, body, KT_CHILD_ALARM, what);
        if (!check_one_item(svc, "key")) rounds_with_duplicates++;
        check_tools_agree(kc, svc, "key");
        CHECK_STATUS(kk_remove(kc, svc, "key"), KK_OK);
    }
    CHECK_EQ(rounds_with_duplicates, 0);
    kk_close(kc);
}

/* ---- processes creating one new key --------------------------------------- */

static void creator(rendezvous *r, const char *svc, int writer)
{
    kk_keychain *kc = connected_handle(svc);
    if (KT_CHILD(CHECK(rendezvous_arrive(r))) && kc != NULL) {
        char value[128];
        make_value(value, sizeof value, writer, 0);
        KT_CHILD(CHECK_STATUS(kk_set(kc, svc, "key", value, strlen(value)), KK_OK));
    }
    if (kc != NULL) kk_close(kc);
}

TEST_EXCEPT_ON_SERVER(KT_SECRET_SERVICE, "keepassxc", KEEPASSXC_CONCURRENT_CREATES, processes_creating_one_key_leave_one_item)
{
    check_rounds_leave_one_item(CREATE_ROUNDS, creator, "a creator");
}

/* ---- threads and handles of one process creating one new key -------------- */

typedef struct thread_writer {
    kk_keychain *kc;
    const char *svc;
    int writer;
    pthread_barrier_t *start;
} thread_writer;

static void *thread_creator(void *arg)
{
    thread_writer *t = arg;
    char value[128];
    make_value(value, sizeof value, t->writer, 0);
    pthread_barrier_wait(t->start);
    CHECK_STATUS(kk_set(t->kc, t->svc, "key", value, strlen(value)), KK_OK);
    return NULL;
}

TEST_EXCEPT_ON_SERVER(KT_SECRET_SERVICE, "keepassxc", KEEPASSXC_CONCURRENT_CREATES, threads_and_handles_creating_one_key_leave_one_item)
{
    // Threads 0 and 1 share a handle; threads 2 and 3 have one each.
    kk_keychain *handles[3];
    for (int h = 0; h < 3; h++) {
        handles[h] = kt_open();
        REQUIRE(handles[h] != NULL);
    }
    int rounds_with_duplicates = 0;
    for (int round = 0; round < CREATE_ROUNDS; round++) {
        char svc[256], value[128];
        round_service(svc, sizeof svc, round);
        for (int h = 0; h < 3; h++) CHECK_STATUS(kk_exists(handles[h], svc, "key"), KK_ENOTFOUND);
        pthread_barrier_t start;
        REQUIRE(pthread_barrier_init(&start, NULL, WRITERS) == 0);
        pthread_t threads[WRITERS];
        thread_writer writers[WRITERS];
        for (int w = 0; w < WRITERS; w++) {
            writers[w] = (thread_writer){handles[w < 2 ? 0 : w - 1], svc, w, &start};
            REQUIRE(pthread_create(&threads[w], NULL, thread_creator, &writers[w]) == 0);
        }
        for (int w = 0; w < WRITERS; w++) pthread_join(threads[w], NULL);
        pthread_barrier_destroy(&start);
        if (!check_one_item(svc, "key")) rounds_with_duplicates++;
        check_whole_value(handles[0], svc, "key", value, sizeof value);
        CHECK_STATUS(kk_remove(handles[0], svc, "key"), KK_OK);
    }
    CHECK_EQ(rounds_with_duplicates, 0);
    for (int h = 0; h < 3; h++) kk_close(handles[h]);
}

/* ---- processes mixing set, remove and get on shared keys ------------------ */

static const char *const mixed_keys[MIXED_KEYS] = {"alpha", "beta", "gamma"};

static void mixed_writer(rendezvous *r, const char *svc, int writer)
{
    kk_keychain *kc = connected_handle(svc);
    if (!KT_CHILD(CHECK(rendezvous_arrive(r))) || kc == NULL) return;
    unsigned seed = 0x5eed0000u + (unsigned)writer;
    for (int step = 0; step < MIXED_OPERATIONS; step++) {
        const char *account = mixed_keys[rand_r(&seed) % MIXED_KEYS];
        int operation = rand_r(&seed) % 3;
        if (operation == 0) {
            char value[128];
            make_value(value, sizeof value, writer, step);
            KT_CHILD(CHECK_STATUS(kk_set(kc, svc, account, value, strlen(value)), KK_OK));
        } else if (operation == 1) {
            KT_CHILD(CHECK_STATUS(kk_remove(kc, svc, account), KK_OK));
        } else {
            char *value = NULL;
            size_t len = 0;
            kk_status st = kk_get(kc, svc, account, &value, &len);
            if (st != KK_OK) KT_CHILD(CHECK_STATUS(st, KK_ENOTFOUND));
            else if (!KT_CHILD(CHECK(is_whole_value(value, len))))
                printf("    read %zu bytes: \"%.*s\"\n", len, (int)len, value);
            kk_secret_free(value);
        }
    }
    kk_close(kc);
}

TEST_EXCEPT_ON_SERVER(KT_SECRET_SERVICE, "keepassxc", KEEPASSXC_CONCURRENT_CREATES, processes_mixing_writes_keep_at_most_one_item_per_key)
{
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    const char *svc = kt_service();
    run_writers(svc, mixed_writer, MIXED_ALARM, "a mixed writer");
    for (int k = 0; k < MIXED_KEYS; k++) {
        int count = -1;
        CHECK(kt_ss_count_items(svc, mixed_keys[k], &count) == 0);
        CHECK(count == 0 || count == 1);
        if (count != 1) continue;
        check_tools_agree(kc, svc, mixed_keys[k]);
        CHECK_STATUS(kk_remove(kc, svc, mixed_keys[k]), KK_OK);
    }
    kk_close(kc);
}

/* ---- our writers racing secret-tool ---------------------------------------- */

static void racer(rendezvous *r, const char *svc, int writer)
{
    char value[128];
    make_value(value, sizeof value, writer, 0);
    if (writer % 2 == 0) {
        kk_keychain *kc = connected_handle(svc);
        if (KT_CHILD(CHECK(rendezvous_arrive(r))) && kc != NULL)
            KT_CHILD(CHECK_STATUS(kk_set(kc, svc, "key", value, strlen(value)), KK_OK));
        if (kc != NULL) kk_close(kc);
    } else if (KT_CHILD(CHECK(rendezvous_arrive(r)))) {
        KT_CHILD(CHECK(kt_secret_tool_store(svc, "key", "secret-tool's", value) == 0));
    }
}

TEST_EXCEPT_ON_SERVER(KT_SECRET_SERVICE, "keepassxc|fake-oo7",
                      KEEPASSXC_CONCURRENT_CREATES "; oo7 replaces only an item of the exact attribute set, "
                      "so secret-tool's item made after ours stays beside it until our next write "
                      "(set_collapses_duplicates_left_behind)",
                      writers_racing_secret_tool_leave_one_item)
{
    check_rounds_leave_one_item(RACE_ROUNDS, racer, "a writer racing secret-tool");
}

/* ---- duplicates another tool left behind ----------------------------------- */

/** Creates `n` more items of (svc, account), never replacing. */
static int make_duplicates(const char *svc, const char *account, int n)
{
    for (int i = 0; i < n; i++) {
        char value[32];
        snprintf(value, sizeof value, "theirs %d", i);
        if (!CHECK(kt_ss_create_item(svc, account, "left behind", value) == 0)) return 0;
    }
    return 1;
}

/** Checks that kk_get, secret-tool and the keyring agree: one item, `want`. */
static void check_collapsed(kk_keychain *kc, const char *svc, const char *account, const char *want)
{
    char theirs[128];
    check_one_item(svc, account);
    CHECK_GOT(kc, svc, account, want);
    if (CHECK(kt_secret_tool_lookup(svc, account, theirs, sizeof theirs) == 0)) CHECK_STR_EQ(theirs, want);
}

TEST_ON(KT_SECRET_SERVICE, set_collapses_duplicates_left_behind)
{
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    const char *svc = kt_service();

    REQUIRE(make_duplicates(svc, "new", 3));
    CHECK_STATUS(kk_set(kc, svc, "new", "ours", 4), KK_OK);
    check_collapsed(kc, svc, "new", "ours");

    // The handle remembers "new" as having one item; duplicates appear
    // behind its back.
    REQUIRE(make_duplicates(svc, "new", 2));
    CHECK_STATUS(kk_set(kc, svc, "new", "ours again", 10), KK_OK);
    check_collapsed(kc, svc, "new", "ours again");

    CHECK_STATUS(kk_remove(kc, svc, "new"), KK_OK);
    CHECK_STATUS(kk_exists(kc, svc, "new"), KK_ENOTFOUND);
    kk_close(kc);
}

/* ---- Python keyring's items beside ours ------------------------------------- */

TEST_ON(KT_SECRET_SERVICE, a_python_keyring_item_beside_ours_is_read_then_collapsed)
{
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    const char *svc = kt_service();
    CHECK_STATUS(kk_set(kc, svc, "alice", "ours", 4), KK_OK);
    REQUIRE(CHECK(kt_keyring_set_password(svc, "alice", "theirs") == 0));
    int count = -1;
    CHECK(kt_ss_count_items(svc, "alice", &count) == 0);
    CHECK_EQ(count, 2); /* keyring's replace met no item carrying its "application" */
    CHECK_GOT(kc, svc, "alice", "theirs"); /* the most recently modified */
    CHECK_STATUS(kk_set(kc, svc, "alice", "ours again", 10), KK_OK);
    check_collapsed(kc, svc, "alice", "ours again");
    CHECK_STATUS(kk_remove(kc, svc, "alice"), KK_OK);
    CHECK(kt_ss_count_items(svc, "alice", &count) == 0);
    CHECK_EQ(count, 0);
    kk_close(kc);
}

/** Writers 0 and 2 are ours (a handle each); 1 and 3 store as Python
 *  keyring's set_password does, on a GIO connection of their own (the
 *  parent has none: see the test). */
static void keyring_racer(rendezvous *r, const char *svc, int writer)
{
    char value[128];
    make_value(value, sizeof value, writer, 0);
    if (writer % 2 == 0) {
        racer(r, svc, writer);
        return;
    }
    int ignored = 0;
    int connected = KT_CHILD(CHECK(kt_ss_count_items(svc, "connected", &ignored) == 0));
    if (KT_CHILD(CHECK(rendezvous_arrive(r))) && connected)
        KT_CHILD(CHECK(kt_keyring_set_password(svc, "key", value) == 0));
}

TEST_EXCEPT_ON_SERVER(KT_SECRET_SERVICE, "keepassxc", KEEPASSXC_CONCURRENT_CREATES,
                      writers_racing_python_keyring_leave_one_item_after_our_write)
{
    /* A round may leave keyring's item beside ours: our next write makes
     * them one. The items are counted after the last round only: a child
     * forked after this process opened its GIO connection would inherit a
     * connection whose worker thread stayed behind. */
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    for (int round = 0; round < KEYRING_RACE_ROUNDS; round++) {
        char svc[256], value[128];
        round_service(svc, sizeof svc, round);
        run_writers(svc, keyring_racer, KT_CHILD_ALARM, "a writer racing Python keyring");
        check_whole_value(kc, svc, "key", value, sizeof value);
        CHECK_STATUS(kk_set(kc, svc, "key", "ours, last", 10), KK_OK);
    }
    for (int round = 0; round < KEYRING_RACE_ROUNDS; round++) {
        char svc[256];
        round_service(svc, sizeof svc, round);
        check_collapsed(kc, svc, "key", "ours, last");
        CHECK_STATUS(kk_remove(kc, svc, "key"), KK_OK);
    }
    kk_close(kc);
}
