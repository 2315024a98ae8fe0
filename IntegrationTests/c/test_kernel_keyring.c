/* SPDX-License-Identifier: MIT */
/*
 * test_kernel_keyring.c — the kernel keyring backend's own cases: keys as
 * keyctl sees them (description scheme, payload, permissions), another
 * process of the user finds them in the persistent keyring, the value size
 * limit, the three keyrings kept apart (and no fall back into keyrings
 * nested in the chosen one), a full quota (as an unprivileged user, whose
 * quota is small), EACCES, a seccomp filter that forbids the system
 * calls as Docker's default profile does, and handles racing to set and
 * remove one key.
 *
 * The generic tests run on the runner's own session keyring (kt_open());
 * these also touch the user's persistent and user keyrings, and remove
 * every key they add there.
 */
#define _DEFAULT_SOURCE

#include "kt_fork.h"
#include "kt_keychain.h"

#include <errno.h>
#include <pthread.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

/* linux/keyctl.h */
#define SPEC_PROCESS (-2)
#define SPEC_SESSION (-3)
#define SPEC_USER (-4)
#define KEYCTL_GET_KEYRING_ID 0
#define KEYCTL_JOIN_SESSION_KEYRING 1
#define KEYCTL_SETPERM 5
#define KEYCTL_DESCRIBE 6
#define KEYCTL_LINK 8
#define KEYCTL_SEARCH 10
#define KEYCTL_READ 11
#define KEYCTL_GET_PERSISTENT 22

static long keyctl(int operation, long a, long b, long c, long d)
{
    return syscall(SYS_keyctl, operation, a, b, c, d);
}

/** The user's persistent keyring, linked into this process's keyring. */
static long persistent_keyring(void)
{
    return keyctl(KEYCTL_GET_PERSISTENT, -1, SPEC_PROCESS, 0, 0);
}

/** The serial of the "user" key `description` in `keyring`, or -errno. */
static long search(long keyring, const char *description)
{
    long serial = keyctl(KEYCTL_SEARCH, keyring, (long)"user", (long)description, 0);
    return serial < 0 ? -errno : serial;
}

static kk_keychain *open_in(kk_kernel_keyring which)
{
    kk_keychain *kc = NULL;
    CHECK_STATUS(kk_open_kernel_keyring_in(which, &kc), KK_OK);
    return kc;
}

/** Checks that kk_error_message() contains `part`. */
#define CHECK_MESSAGE_HAS(part) \
    kt_check(strstr(kk_error_message(), (part)) != NULL, __FILE__, __LINE__, \
             "kk_error_message \"%s\" contains \"%s\"", kk_error_message(), (part))

TEST_ON(KT_KERNEL, keyctl_finds_and_reads_keys_by_the_documented_description)
{
    kk_keychain *kc = NULL;
    REQUIRE(CHECK_STATUS(kk_open_kernel_keyring(&kc), KK_OK));
    const char *svc = "kk-c-test.scheme:with:colons", *account = "a:b;c";
    REQUIRE(CHECK_STATUS(kk_set(kc, svc, account, "s3cret", 6), KK_OK));

    long ring = persistent_keyring();
    REQUIRE(CHECK(ring > 0));
    char description[128];
    snprintf(description, sizeof description, "keychainkit:%zu:%s:%s", strlen(svc), svc, account);
    long serial = search(ring, description);
    if (CHECK(serial > 0)) {
        char value[16] = {0};
        CHECK_EQ(keyctl(KEYCTL_READ, serial, (long)value, sizeof value, 0), 6);
        CHECK_STR_EQ(value, "s3cret");
        char described[256] = {0};
        CHECK(keyctl(KEYCTL_DESCRIBE, serial, (long)described, sizeof described, 0) > 0);
        /* type;uid;gid;perm;description: possessor all, user view/read/write/search. */
        char want[256];
        snprintf(want, sizeof want, "user;%u;%u;3f0f0000;%s", (unsigned)geteuid(), (unsigned)getegid(), description);
        CHECK_STR_EQ(described, want);
    }
    /* A service that is a prefix of another's, with the colon moved, is another key. */
    char other[64];
    snprintf(other, sizeof other, "keychainkit:%zu:%s:%s", strlen(svc) + 2, svc, "a");
    CHECK_EQ(search(ring, other), -ENOKEY);

    CHECK_STATUS(kk_remove(kc, svc, account), KK_OK);
    CHECK_EQ(search(ring, description), -ENOKEY);
    kk_close(kc);
}

TEST_ON(KT_KERNEL, a_key_another_tool_added_is_read_and_updated_in_place)
{
    long ring = persistent_keyring();
    REQUIRE(CHECK(ring > 0));
    const char *svc = "kk-c-test.other-tool";
    /* As `keyctl padd user keychainkit:20:kk-c-test.other-tool:acct %:_persistent` would. */
    long serial = syscall(SYS_add_key, "user", "keychainkit:20:kk-c-test.other-tool:acct", "theirs", 6, ring);
    REQUIRE(CHECK(serial > 0));
    kk_keychain *kc = NULL;
    REQUIRE(CHECK_STATUS(kk_open_kernel_keyring(&kc), KK_OK));
    CHECK_VALUE(kc, svc, "acct", "theirs", 6);
    CHECK_STATUS(kk_set(kc, svc, "acct", "ours", 4), KK_OK);
    CHECK_EQ(search(ring, "keychainkit:20:kk-c-test.other-tool:acct"), serial); /* one key, updated */
    CHECK_VALUE(kc, svc, "acct", "ours", 4);
    CHECK_STATUS(kk_remove(kc, svc, "acct"), KK_OK);
    CHECK_ABSENT(kc, svc, "acct");
    kk_close(kc);
}

TEST_ON(KT_KERNEL, another_process_of_the_user_finds_the_item_in_the_persistent_keyring)
{
    kk_keychain *kc = NULL;
    REQUIRE(CHECK_STATUS(kk_open_kernel_keyring(&kc), KK_OK));
    const char *svc = kt_service();
    REQUIRE(CHECK_STATUS(kk_set(kc, svc, "from-parent", "p", 1), KK_OK));
    pid_t pid = kt_fork();
    REQUIRE(CHECK(pid >= 0));
    if (pid == 0) {
        /* Another session (as another login would be), a handle of its own. */
        KT_CHILD(CHECK(keyctl(KEYCTL_JOIN_SESSION_KEYRING, 0, 0, 0, 0) > 0));
        kk_keychain *own = NULL;
        KT_CHILD(CHECK_STATUS(kk_open_kernel_keyring(&own), KK_OK));
        KT_CHILD(CHECK_GOT(own, svc, "from-parent", "p"));
        KT_CHILD(CHECK_STATUS(kk_set(own, svc, "from-child", "c", 1), KK_OK));
        kk_close(own);
        kt_child_exit();
    }
    REQUIRE(CHECK_CHILD(pid, "the child in another session"));
    CHECK_VALUE(kc, svc, "from-child", "c", 1);
    char **accounts = NULL;
    size_t count = 0;
    if (CHECK_STATUS(kk_list(kc, svc, &accounts, &count), KK_OK) && CHECK_EQ(count, 2)) {
        CHECK_STR_EQ(accounts[0], "from-child");
        CHECK_STR_EQ(accounts[1], "from-parent");
    }
    kk_list_free(accounts);
    CHECK_STATUS(kk_remove(kc, svc, "from-parent"), KK_OK);
    CHECK_STATUS(kk_remove(kc, svc, "from-child"), KK_OK);
    kk_close(kc);
}

TEST_ON(KT_KERNEL, values_hold_1_to_32767_bytes_never_truncated)
{
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    const char *svc = kt_service();
    static char big[32768];
    memset(big, 'x', sizeof big);
    CHECK_STATUS(kk_set(kc, svc, "acct", big, 32767), KK_OK);
    CHECK_VALUE(kc, svc, "acct", big, 32767);
    CHECK_STATUS(kk_set(kc, svc, "acct", big, 32768), KK_EINVAL);
    CHECK_MESSAGE_HAS("32767 bytes");
    CHECK_STATUS(kk_set(kc, svc, "acct", "", 0), KK_EINVAL);
    CHECK_MESSAGE_HAS("1 to 32767 bytes");
    CHECK_VALUE(kc, svc, "acct", big, 32767); /* the failed writes changed nothing */
    /* A description beyond the kernel's 4095 bytes. */
    static char account[4096];
    memset(account, 'a', sizeof account - 1);
    CHECK_STATUS(kk_set(kc, svc, account, "v", 1), KK_EINVAL);
    CHECK_MESSAGE_HAS("4095 bytes");
    CHECK_ABSENT(kc, svc, account);
    CHECK_STATUS(kk_remove(kc, svc, "acct"), KK_OK);
    kk_close(kc);
}

TEST_ON(KT_KERNEL, the_three_keyrings_are_apart_and_nested_keyrings_are_not_searched)
{
    kk_keychain *session = open_in(KK_KERNEL_SESSION), *user = open_in(KK_KERNEL_USER),
                *persistent = open_in(KK_KERNEL_PERSISTENT);
    REQUIRE(session != NULL && user != NULL && persistent != NULL);
    const char *svc = kt_service();
    CHECK_STATUS(kk_set(session, svc, "acct", "session", 7), KK_OK);
    CHECK_STATUS(kk_set(user, svc, "acct", "user", 4), KK_OK);
    CHECK_STATUS(kk_set(persistent, svc, "acct", "persistent", 10), KK_OK);
    CHECK_VALUE(session, svc, "acct", "session", 7);
    CHECK_VALUE(user, svc, "acct", "user", 4);
    CHECK_VALUE(persistent, svc, "acct", "persistent", 10);
    CHECK_STATUS(kk_remove(session, svc, "acct"), KK_OK);
    CHECK_VALUE(user, svc, "acct", "user", 4);

    /* The user keyring linked into the session keyring (as pam_keyinit
     * does): the session handle still sees only its own keyring's keys. */
    CHECK(keyctl(KEYCTL_LINK, SPEC_USER, SPEC_SESSION, 0, 0) == 0);
    CHECK_ABSENT(session, svc, "acct");
    CHECK_STATUS(kk_exists(session, svc, "acct"), KK_ENOTFOUND);
    CHECK_STATUS(kk_remove(session, svc, "acct"), KK_OK);
    CHECK_VALUE(user, svc, "acct", "user", 4);

    /* Another session keyring does not see this one's keys. */
    CHECK_STATUS(kk_set(session, svc, "mine", "m", 1), KK_OK);
    pid_t pid = kt_fork();
    REQUIRE(CHECK(pid >= 0));
    if (pid == 0) {
        KT_CHILD(CHECK_GOT(session, svc, "mine", "m")); /* inherited session keyring */
        KT_CHILD(CHECK(keyctl(KEYCTL_JOIN_SESSION_KEYRING, 0, 0, 0, 0) > 0));
        KT_CHILD(CHECK_GOT(session, svc, "mine", NULL));
        KT_CHILD(CHECK_GOT(user, svc, "acct", "user"));
        kt_child_exit();
    }
    CHECK_CHILD(pid, "the child in a new session");
    CHECK_STATUS(kk_remove(user, svc, "acct"), KK_OK);
    CHECK_STATUS(kk_remove(persistent, svc, "acct"), KK_OK);
    CHECK_ABSENT(persistent, svc, "acct");
    kk_close(session);
    kk_close(user);
    kk_close(persistent);
}

TEST_ON(KT_KERNEL, session_keys_are_readable_by_their_session_only)
{
    kk_keychain *session = open_in(KK_KERNEL_SESSION);
    REQUIRE(session != NULL);
    const char *svc = kt_service();
    REQUIRE(CHECK_STATUS(kk_set(session, svc, "acct", "s3cret", 6), KK_OK));
    char description[256];
    snprintf(description, sizeof description, "keychainkit:%zu:%s:acct", strlen(svc), svc);
    long serial = search(SPEC_SESSION, description);
    if (CHECK(serial > 0)) {
        char described[512] = {0};
        CHECK(keyctl(KEYCTL_DESCRIBE, serial, (long)described, sizeof described, 0) > 0);
        /* possessor all; user, group and others nothing */
        char want[512];
        snprintf(want, sizeof want, "user;%u;%u;3f000000;%s", (unsigned)geteuid(), (unsigned)getegid(), description);
        CHECK_STR_EQ(described, want);
        /* Another session of the same user, with the serial in hand
         * (`keyctl print <serial>` from another login), reads nothing. */
        pid_t pid = kt_fork();
        REQUIRE(CHECK(pid >= 0));
        if (pid == 0) {
            KT_CHILD(CHECK(keyctl(KEYCTL_JOIN_SESSION_KEYRING, 0, 0, 0, 0) > 0));
            char value[16] = {0};
            long read = keyctl(KEYCTL_READ, serial, (long)value, sizeof value, 0);
            KT_CHILD(CHECK(read < 0 && errno == EACCES));
            KT_CHILD(CHECK(strcmp(value, "s3cret") != 0));
            kt_child_exit();
        }
        CHECK_CHILD(pid, "the child in another session");
    }
    CHECK_STATUS(kk_remove(session, svc, "acct"), KK_OK);
    kk_close(session);
}

TEST_ON(KT_KERNEL, unknown_keyrings_and_null_out_are_rejected)
{
    kk_keychain *kc = (kk_keychain *)KT_SENTINEL;
    CHECK_STATUS(kk_open_kernel_keyring_in((kk_kernel_keyring)3, &kc), KK_EINVAL);
    CHECK_MESSAGE_HAS("unknown kernel keyring 3");
    CHECK(kc == (kk_keychain *)KT_SENTINEL);
    CHECK_STATUS(kk_open_kernel_keyring_in(KK_KERNEL_USER, NULL), KK_EINVAL);
    CHECK_STATUS(kk_open_kernel_keyring(NULL), KK_EINVAL);
}

TEST_ON(KT_KERNEL, a_full_quota_is_a_clear_error)
{
    /* An unprivileged user's quota (maxbytes, 20000 by default) is small
     * enough to fill; root's (root_maxbytes) is not, and is shared. */
    REQUIRE(kt_check(geteuid() == 0, __FILE__, __LINE__,
                     "running as root, to become an unprivileged user in a child"));
    pid_t pid = kt_fork();
    REQUIRE(CHECK(pid >= 0));
    if (pid == 0) {
        KT_CHILD(CHECK(setgid(65534) == 0 && setuid(65534) == 0));
        KT_CHILD(CHECK(keyctl(KEYCTL_JOIN_SESSION_KEYRING, 0, 0, 0, 0) > 0));
        kk_keychain *kc = open_in(KK_KERNEL_SESSION);
        static char value[16001]; /* 16000 bytes and a NUL */
        memset(value, 'q', 16000);
        KT_CHILD(CHECK_STATUS(kk_set(kc, kt_service(), "first", value, 16000), KK_OK));
        KT_CHILD(CHECK_STATUS(kk_set(kc, kt_service(), "second", value, 16000), KK_EUNKNOWN));
        /* The kernel charges the payload, the description and its NUL. */
        char needs[64];
        snprintf(needs, sizeof needs, "this key needs %zu bytes",
                 16000 + strlen("keychainkit:NN::second") + strlen(kt_service()) + 1);
        KT_CHILD(CHECK_MESSAGE_HAS("quota is exhausted"));
        KT_CHILD(CHECK_MESSAGE_HAS("of 20000 bytes"));
        KT_CHILD(CHECK_MESSAGE_HAS("/proc/sys/kernel/keys/maxbytes"));
        KT_CHILD(CHECK_MESSAGE_HAS(needs));
        KT_CHILD(CHECK_GOT(kc, kt_service(), "second", NULL));
        KT_CHILD(CHECK_GOT(kc, kt_service(), "first", value));
        kk_close(kc);
        kt_child_exit();
    }
    CHECK_CHILD(pid, "the unprivileged child");
}

TEST_ON(KT_KERNEL, a_keyring_without_write_permission_is_denied)
{
    pid_t pid = kt_fork();
    REQUIRE(CHECK(pid >= 0));
    if (pid == 0) {
        long ring = keyctl(KEYCTL_JOIN_SESSION_KEYRING, 0, 0, 0, 0);
        KT_CHILD(CHECK(ring > 0));
        /* The possessor may view, read, search, link and set attributes; not write. */
        KT_CHILD(CHECK(keyctl(KEYCTL_SETPERM, ring, 0x3b000000, 0, 0) == 0));
        kk_keychain *kc = open_in(KK_KERNEL_SESSION);
        KT_CHILD(CHECK_STATUS(kk_set(kc, kt_service(), "acct", "v", 1), KK_EDENIED));
        KT_CHILD(CHECK_MESSAGE_HAS("EACCES"));
        KT_CHILD(CHECK_GOT(kc, kt_service(), "acct", NULL)); /* reading is allowed */
        kk_close(kc);
        kt_child_exit();
    }
    CHECK_CHILD(pid, "the child with a read-only session keyring");
}

/** In a child: installs a seccomp filter that makes add_key, keyctl and
 *  request_key fail with `error` (Docker's default profile: EPERM, or
 *  ENOSYS for calls it does not know), then checks every operation. */
static void forbidden_keyctl_is_unavailable(int error)
{
    pid_t pid = kt_fork();
    REQUIRE(CHECK(pid >= 0));
    if (pid == 0) {
        struct sock_filter filter[] = {
            BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
            BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_add_key, 3, 0),
            BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_keyctl, 2, 0),
            BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_request_key, 1, 0),
            BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
            BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (error & SECCOMP_RET_DATA)),
        };
        struct sock_fprog program = {sizeof filter / sizeof filter[0], filter};
        KT_CHILD(CHECK(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0));
        KT_CHILD(CHECK(prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &program) == 0));
        KT_CHILD(CHECK(keyctl(KEYCTL_GET_KEYRING_ID, SPEC_USER, 0, 0, 0) < 0 && errno == error));
        kk_keychain *kc = NULL;
        KT_CHILD(CHECK_STATUS(kk_open_kernel_keyring(&kc), KK_OK)); /* no system call yet */
        char *value = KT_SENTINEL;
        KT_CHILD(CHECK_STATUS(kk_get(kc, kt_service(), "acct", &value, NULL), KK_EUNAVAILABLE));
        KT_CHILD(CHECK_MESSAGE_HAS("the kernel keyring is forbidden here"));
        KT_CHILD(CHECK_MESSAGE_HAS("seccomp"));
        KT_CHILD(CHECK_STATUS(kk_set(kc, kt_service(), "acct", "v", 1), KK_EUNAVAILABLE));
        KT_CHILD(CHECK_STATUS(kk_exists(kc, kt_service(), "acct"), KK_EUNAVAILABLE));
        KT_CHILD(CHECK_STATUS(kk_remove(kc, kt_service(), "acct"), KK_EUNAVAILABLE));
        char **accounts = NULL;
        KT_CHILD(CHECK_STATUS(kk_list(kc, kt_service(), &accounts, NULL), KK_EUNAVAILABLE));
        kk_close(kc);
        kt_child_exit();
    }
    CHECK_CHILD(pid, error == EPERM ? "the child whose filter answers EPERM" : "the child whose filter answers ENOSYS");
}

TEST_ON(KT_KERNEL, a_seccomp_filter_answering_eperm_is_unavailable)
{
    forbidden_keyctl_is_unavailable(EPERM);
}

TEST_ON(KT_KERNEL, a_seccomp_filter_answering_enosys_is_unavailable)
{
    forbidden_keyctl_is_unavailable(ENOSYS);
}

/* ---- handles racing on one key ------------------------------------------- */

#define RACERS 8
#define RACE_STEPS 1500

typedef struct key_racer {
    const char *svc;
    int seed;
    int unexpected;
    kk_status first_status;
    const char *first_call;
} key_racer;

static void race_unexpected(key_racer *r, const char *call, kk_status status)
{
    if (r->unexpected++ == 0) {
        r->first_call = call;
        r->first_status = status;
    }
}

/** Sets, reads and removes the keys "a" and "b" through a handle of its
 *  own, RACE_STEPS times. */
static void *race_on_one_key(void *arg)
{
    key_racer *r = arg;
    kk_keychain *kc = kt_open();
    if (kc == NULL) {
        race_unexpected(r, "kt_open", KK_EUNKNOWN);
        return NULL;
    }
    for (int step = 0; step < RACE_STEPS; step++) {
        const char *account = (r->seed + step) % 2 ? "b" : "a";
        kk_status st;
        if ((r->seed * 7 + step) % 3 == 0) {
            if ((st = kk_remove(kc, r->svc, account)) != KK_OK) race_unexpected(r, "kk_remove", st);
            continue;
        }
        char value[32];
        int n = snprintf(value, sizeof value, "%d:%d", r->seed, step);
        if ((st = kk_set(kc, r->svc, account, value, (size_t)n)) != KK_OK) race_unexpected(r, "kk_set", st);
        char *read = NULL;
        st = kk_get(kc, r->svc, account, &read, NULL);
        if (st != KK_OK && st != KK_ENOTFOUND) race_unexpected(r, "kk_get", st);
        kk_secret_free(read);
    }
    kk_close(kc);
    return NULL;
}

/* A removal that finds the key another handle unlinks meanwhile removes an
 * absent key (the kernel says ENOENT): KK_OK, as is a write that finds the
 * key gone, and a read finds it or not; no other status. */
TEST_ON(KT_KERNEL, handles_racing_to_set_and_remove_one_key_see_no_error)
{
    const char *svc = kt_service();
    key_racer racers[RACERS];
    pthread_t threads[RACERS];
    int started = 0;
    for (int i = 0; i < RACERS; i++) {
        racers[i] = (key_racer){.svc = svc, .seed = i};
        if (!CHECK(pthread_create(&threads[i], NULL, race_on_one_key, &racers[i]) == 0)) break;
        started++;
    }
    for (int i = 0; i < started; i++) pthread_join(threads[i], NULL);
    CHECK_EQ(started, RACERS);
    for (int i = 0; i < started; i++) {
        if (!CHECK_EQ(racers[i].unexpected, 0))
            kt_check(0, __FILE__, __LINE__, "handle %d: first unexpected: %s returned %s", i,
                     racers[i].first_call, kt_status_name(racers[i].first_status));
    }
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    CHECK_STATUS(kk_remove(kc, svc, "a"), KK_OK);
    CHECK_STATUS(kk_remove(kc, svc, "b"), KK_OK);
    CHECK_ABSENT(kc, svc, "a");
    kk_close(kc);
}
