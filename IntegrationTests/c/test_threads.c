/* SPDX-License-Identifier: MIT */
/*
 * test_threads.c — one handle used by 8 threads at once: mixed kk_set,
 * kk_get, kk_remove, kk_observe and kk_unobserve on a few shared keys.
 * No crash or deadlock, only the expected statuses, and every value read
 * is one some thread wrote for that key. Then the trust-boundary issue's
 * load: 8 threads × 30 rounds of set, get, set of a shared key and a remove
 * every 10 rounds, ten runs in a row on KeePassXC.
 */
#include "kt_keychain.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define THREADS 8
#define KEYS 3
#define MAX_TOKENS 4

static const char *const accounts[KEYS] = {"k0", "k1", "k2"};

typedef struct worker {
    kk_keychain *kc;
    const char *service;
    int index;
    int ops;
    /* results, read by the main thread after join */
    int unexpected;           /* calls with an unexpected status */
    int first_unexpected_status;
    char first_unexpected_op[32];
    int bad_values;           /* successful gets with a value nobody wrote */
    char first_bad_value[64];
    int gets_ok;
} worker;

static atomic_int callbacks, callback_bad, observes_ok, destroys;

static void on_change(kk_event event, const char *service, const char *account, kk_status status,
                      void *userdata)
{
    const char *want_account = userdata;
    atomic_fetch_add(&callbacks, 1);
    if (status != KK_OK || (event != KK_EVENT_SET && event != KK_EVENT_REMOVE) ||
        account == NULL || strcmp(account, want_account) != 0 || service == NULL)
        atomic_fetch_add(&callback_bad, 1);
}

static void on_destroy(void *userdata)
{
    (void)userdata;
    atomic_fetch_add(&destroys, 1);
}

static void unexpected(worker *w, const char *op, kk_status status)
{
    if (w->unexpected++ == 0) {
        w->first_unexpected_status = status;
        snprintf(w->first_unexpected_op, sizeof w->first_unexpected_op, "%s", op);
    }
}

/** Whether `value` is "<account>/t<thread>/o<op>" as some worker writes it. */
static int written_by_someone(const char *account, const char *value, size_t len, int ops)
{
    char expected[64];
    int thread = -1, op = -1, consumed = 0;
    size_t prefix = strlen(account);
    if (len != strlen(value) || strncmp(value, account, prefix) != 0 || value[prefix] != '/')
        return 0;
    if (sscanf(value + prefix, "/t%d/o%d%n", &thread, &op, &consumed) != 2) return 0;
    if (thread < 0 || thread >= THREADS || op < 0 || op >= ops) return 0;
    snprintf(expected, sizeof expected, "%s/t%d/o%d", account, thread, op);
    return strcmp(expected, value) == 0;
}

static void *work(void *arg)
{
    worker *w = arg;
    uint32_t rng = 2463534242u + (uint32_t)w->index * 7919u;
    uint64_t tokens[MAX_TOKENS];
    int token_count = 0;
    for (int i = 0; i < w->ops; i++) {
        rng ^= rng << 13; rng ^= rng >> 17; rng ^= rng << 5; /* xorshift32 */
        const char *account = accounts[rng % KEYS];
        unsigned op = (rng / KEYS) % 10;
        kk_status st;
        if (op < 3) {
            char value[64];
            int n = snprintf(value, sizeof value, "%s/t%d/o%d", account, w->index, i);
            if ((st = kk_set(w->kc, w->service, account, value, (size_t)n)) != KK_OK) unexpected(w, "kk_set", st);
        } else if (op < 6) {
            char *value = NULL;
            size_t len = 0;
            st = kk_get(w->kc, w->service, account, &value, &len);
            if (st == KK_OK) {
                w->gets_ok++;
                if (value == NULL || !written_by_someone(account, value, len, w->ops)) {
                    if (w->bad_values++ == 0)
                        snprintf(w->first_bad_value, sizeof w->first_bad_value, "%s", value ? value : "(NULL)");
                }
            } else if (st != KK_ENOTFOUND || value != NULL) {
                unexpected(w, "kk_get", st);
            }
            kk_secret_free(value);
        } else if (op < 7) {
            if ((st = kk_remove(w->kc, w->service, account)) != KK_OK) unexpected(w, "kk_remove", st);
        } else if (op < 9 && token_count < MAX_TOKENS) {
            uint64_t token = 0;
            st = kk_observe(w->kc, w->service, account, on_change, (void *)account, on_destroy, &token);
            if (st != KK_OK || token == 0) unexpected(w, "kk_observe", st);
            else {
                atomic_fetch_add(&observes_ok, 1);
                tokens[token_count++] = token;
            }
        } else if (token_count > 0) {
            uint64_t token = tokens[--token_count];
            if ((st = kk_unobserve(w->kc, token)) != KK_OK) unexpected(w, "kk_unobserve", st);
        }
    }
    /* Observers still in `tokens` stay registered: kk_close removes them. */
    return NULL;
}

static void hammer(int ops)
{
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    worker workers[THREADS];
    pthread_t threads[THREADS];
    int started = 0;
    /* Once, before any worker runs: kt_service() rewrites a shared buffer. */
    const char *service = kt_service();
    for (int i = 0; i < THREADS; i++) {
        workers[i] = (worker){.kc = kc, .service = service, .index = i, .ops = ops};
        if (CHECK(pthread_create(&threads[i], NULL, work, &workers[i]) == 0)) started++;
        else break;
    }
    for (int i = 0; i < started; i++) pthread_join(threads[i], NULL);
    int gets_ok = 0;
    for (int i = 0; i < started; i++) {
        worker *w = &workers[i];
        gets_ok += w->gets_ok;
        if (!CHECK_EQ(w->unexpected, 0))
            kt_check(0, __FILE__, __LINE__, "thread %d: first unexpected: %s returned %s", i,
                     w->first_unexpected_op, kt_status_name(w->first_unexpected_status));
        if (!CHECK_EQ(w->bad_values, 0))
            kt_check(0, __FILE__, __LINE__, "thread %d: read a value nobody wrote: \"%s\"", i,
                     w->first_bad_value);
    }
    CHECK(gets_ok > 0); /* the reads did check something */
    CHECK_EQ(atomic_load(&callback_bad), 0);
    int observed = atomic_load(&observes_ok);
    CHECK(observed > 0);
    kk_close(kc);
    CHECK_EQ(atomic_load(&destroys), observed); /* exactly once each */
}

TEST_ON(KT_MEMORY, threads_share_one_handle_memory)
{
    hammer(1000);
}

TEST_ON(KT_SECRET_SERVICE, threads_share_one_handle_secret_service)
{
    hammer(50);
}

/* ---- 8 threads × 30 rounds, ten runs in a row -------------------------------- */

typedef struct rounds {
    kk_keychain *kc;
    const char *service;
    int index;
    int failures;
    kk_status first_failure;
    char first_message[160];
} rounds;

static void *run_rounds(void *arg)
{
    rounds *r = arg;
    char account[16], value[32];
    snprintf(account, sizeof account, "t%d", r->index);
    for (int round = 0; round < 30; round++) {
        snprintf(value, sizeof value, "v%d-%d", r->index, round);
        char *read = NULL;
        kk_status got, statuses[4];
        statuses[0] = kk_set(r->kc, r->service, account, value, strlen(value));
        got = kk_get(r->kc, r->service, account, &read, NULL);
        statuses[1] = got == KK_OK && (read == NULL || strcmp(read, value) != 0) ? KK_EUNKNOWN : got;
        kk_secret_free(read);
        statuses[2] = kk_set(r->kc, r->service, "shared", value, strlen(value));
        statuses[3] = round % 10 == 9 ? kk_remove(r->kc, r->service, account) : KK_OK;
        for (int i = 0; i < 4; i++) {
            if (statuses[i] != KK_OK && r->failures++ == 0) {
                r->first_failure = statuses[i];
                snprintf(r->first_message, sizeof r->first_message, "%s", kk_error_message());
            }
        }
    }
    return NULL;
}

TEST_ON(KT_SECRET_SERVICE, eight_threads_of_mixed_rounds_ten_runs_in_a_row)
{
    /* Ten runs on KeePassXC (the server the issue found failing), one
     * elsewhere. */
    int runs = strcmp(kt_server(), "keepassxc") == 0 ? 10 : 1;
    for (int run = 0; run < runs; run++) {
        kk_keychain *kc = kt_open();
        REQUIRE(kc != NULL);
        const char *service = kt_service();
        rounds workers[THREADS];
        pthread_t threads[THREADS];
        int started = 0;
        for (int i = 0; i < THREADS; i++) {
            workers[i] = (rounds){.kc = kc, .service = service, .index = i};
            if (CHECK(pthread_create(&threads[i], NULL, run_rounds, &workers[i]) == 0)) started++;
        }
        for (int i = 0; i < started; i++) pthread_join(threads[i], NULL);
        for (int i = 0; i < started; i++) {
            if (!CHECK_EQ(workers[i].failures, 0))
                kt_check(0, __FILE__, __LINE__, "run %d, thread %d: first failure %s: %s", run, i,
                         kt_status_name(workers[i].first_failure), workers[i].first_message);
        }
        CHECK_STATUS(kk_remove(kc, service, "shared"), KK_OK);
        kk_close(kc);
    }
}

/* ---- listing while other threads add accounts ------------------------------ */

#define LIST_WRITERS 4
#define LIST_WRITES 25

typedef struct lister {
    kk_keychain *kc;
    const char *service;
    atomic_int done;
    int listings, unsorted, strangers, failures;
    kk_status first_failure;
} lister;

typedef struct list_writer {
    kk_keychain *kc;
    const char *service;
    int index, failures;
} list_writer;

static void *add_accounts(void *arg)
{
    list_writer *w = arg;
    char account[16];
    for (int step = 0; step < LIST_WRITES; step++) {
        snprintf(account, sizeof account, "k%d-%02d", w->index, step);
        if (kk_set(w->kc, w->service, account, "x", 1) != KK_OK) w->failures++;
    }
    return NULL;
}

/* An account one of the writers writes: "k<writer>-<two-digit step>". */
static int written_name(const char *account)
{
    return strlen(account) == 5 && account[0] == 'k' && account[1] >= '0' &&
           account[1] < '0' + LIST_WRITERS && account[2] == '-' && account[3] >= '0' &&
           account[3] <= '9' && account[4] >= '0' && account[4] <= '9' &&
           (account[3] - '0') * 10 + (account[4] - '0') < LIST_WRITES;
}

/* Lists at least once, also when the writers are done before this thread
 * first runs (a loaded machine: the check of l.listings failed then). */
static void *list_until_done(void *arg)
{
    lister *l = arg;
    do {
        char **accounts = NULL;
        size_t count = 0;
        kk_status status = kk_list(l->kc, l->service, &accounts, &count);
        if (status != KK_OK) {
            if (l->failures++ == 0) l->first_failure = status;
            continue;
        }
        l->listings++;
        for (size_t i = 0; i < count; i++) {
            if (!written_name(accounts[i])) l->strangers++;
            if (i > 0 && strcmp(accounts[i - 1], accounts[i]) >= 0) l->unsorted++;
        }
        kk_list_free(accounts);
    } while (!atomic_load(&l->done));
    return NULL;
}

/* Each listing taken while four threads add accounts is a sorted snapshot
 * of what was written so far; the last one holds everything. */
TEST(listing_while_other_threads_add_accounts)
{
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    const char *service = kt_service();
    lister l = {.kc = kc, .service = service};
    list_writer writers[LIST_WRITERS];
    pthread_t listing, threads[LIST_WRITERS];
    REQUIRE(pthread_create(&listing, NULL, list_until_done, &l) == 0);
    int started = 0;
    for (int i = 0; i < LIST_WRITERS; i++) {
        writers[i] = (list_writer){.kc = kc, .service = service, .index = i};
        if (CHECK(pthread_create(&threads[i], NULL, add_accounts, &writers[i]) == 0)) started++;
    }
    for (int i = 0; i < started; i++) {
        pthread_join(threads[i], NULL);
        CHECK_EQ(writers[i].failures, 0);
    }
    atomic_store(&l.done, 1);
    pthread_join(listing, NULL);
    CHECK(l.listings > 0);
    if (!CHECK_EQ(l.failures, 0))
        kt_check(0, __FILE__, __LINE__, "first failed listing: %s", kt_status_name(l.first_failure));
    CHECK_EQ(l.unsorted, 0);
    CHECK_EQ(l.strangers, 0);
    char **accounts = NULL;
    size_t count = 0;
    REQUIRE(kk_list(kc, service, &accounts, &count) == KK_OK);
    CHECK_EQ(count, (size_t)(LIST_WRITERS * LIST_WRITES));
    for (size_t i = 0; i < count; i++) CHECK(written_name(accounts[i]));
    kk_list_free(accounts);
    for (int i = 0; i < LIST_WRITERS; i++)
        for (int step = 0; step < LIST_WRITES; step++) {
            char account[16];
            snprintf(account, sizeof account, "k%d-%02d", i, step);
            kk_remove(kc, service, account);
        }
    kk_close(kc);
}
