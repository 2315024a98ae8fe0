/* SPDX-License-Identifier: MIT */
/*
 * test_fork.c — fork(): a child uses the handle it inherited (reads, writes,
 * removes) and handles of its own; several children write through one
 * inherited handle at once; a child forked while another thread of the
 * parent is inside kk_get on the same handle is not left waiting on that
 * thread's lock or its half-finished D-Bus call; observers come along. The
 * parent's handle keeps working throughout (on the Secret Service, it never
 * shares its D-Bus connection with a child).
 *
 * Every child runs under alarm(KT_CHILD_ALARM) and reports through its exit
 * status (kt_fork.h): a child that hangs or crashes fails the test, never
 * hangs the suite.
 *
 * On the memory backend a child works on its own copy of the items: what it
 * writes is never seen by the parent (the keychain is process-local). On
 * the Secret Service and the kernel keyring, parent and child share them.
 */
#define _POSIX_C_SOURCE 200809L

#include "kt_fork.h"
#include "kt_keychain.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/** Whether a child's writes reach the parent (and the other way round):
 *  on every backend but the process-local memory one. */
static int shared_across_processes(void) { return kt_current_backend() != KT_MEMORY; }

/** kk_set of a C string. */
static kk_status set_str(kk_keychain *kc, const char *svc, const char *account, const char *value)
{
    return kk_set(kc, svc, account, value, strlen(value));
}

/** In a child: a handle of its own works, and sees (shared backends) the
 *  item `account` = `want` written through the inherited handle; the
 *  inherited handle sees what the new one writes. */
static void child_opens_its_own_handle(kk_keychain *inherited, const char *svc,
                                       const char *account, const char *want)
{
    kk_keychain *fresh = kt_open();
    if (!KT_CHILD(CHECK(fresh != NULL))) return;
    KT_CHILD(CHECK_GOT(fresh, svc, account, shared_across_processes() ? want : NULL));
    KT_CHILD(CHECK_STATUS(set_str(fresh, svc, "child-fresh", "written by the child's own handle"), KK_OK));
    KT_CHILD(CHECK_GOT(fresh, svc, "child-fresh", "written by the child's own handle"));
    KT_CHILD(CHECK_GOT(inherited, svc, "child-fresh",
                       shared_across_processes() ? "written by the child's own handle" : NULL));
    KT_CHILD(CHECK_STATUS(kk_remove(fresh, svc, "child-fresh"), KK_OK));
    KT_CHILD(CHECK_GOT(fresh, svc, "child-fresh", NULL));
    KT_CHILD(CHECK_GOT(inherited, svc, "child-fresh", NULL));
    kk_close(fresh);
}

TEST(fork_child_uses_inherited_handle_and_its_own)
{
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    const char *svc = kt_service();
    REQUIRE(CHECK_STATUS(set_str(kc, svc, "shared", "from the parent"), KK_OK));
    REQUIRE(CHECK_GOT(kc, svc, "shared", "from the parent"));
    REQUIRE(CHECK_STATUS(set_str(kc, svc, "doomed", "removed by the child"), KK_OK));
    /* Absences the parent has read (and may remember) before the child writes. */
    CHECK_GOT(kc, svc, "child-new", NULL);
    CHECK_GOT(kc, svc, "never", NULL);

    pid_t pid = kt_fork();
    REQUIRE(CHECK(pid >= 0));
    if (pid == 0) {
        KT_CHILD(CHECK_GOT(kc, svc, "shared", "from the parent"));
        KT_CHILD(CHECK_GOT(kc, svc, "never", NULL));
        /* Update, insert, remove through the inherited handle. */
        KT_CHILD(CHECK_STATUS(set_str(kc, svc, "shared", "from the child"), KK_OK));
        KT_CHILD(CHECK_GOT(kc, svc, "shared", "from the child"));
        KT_CHILD(CHECK_STATUS(set_str(kc, svc, "child-new", "created by the child"), KK_OK));
        KT_CHILD(CHECK_GOT(kc, svc, "child-new", "created by the child"));
        KT_CHILD(CHECK_STATUS(kk_remove(kc, svc, "doomed"), KK_OK));
        KT_CHILD(CHECK_GOT(kc, svc, "doomed", NULL));
        child_opens_its_own_handle(kc, svc, "shared", "from the child");
        kk_close(kc); /* closing the inherited copy leaves the parent's alone */
        kt_child_exit();
    }
    REQUIRE(CHECK_CHILD(pid, "the child"));

    if (shared_across_processes()) {
        /* The child's writes, seen at once through the parent's handle. */
        CHECK_GOT(kc, svc, "shared", "from the child");
        CHECK_GOT(kc, svc, "child-new", "created by the child");
        CHECK_GOT(kc, svc, "doomed", NULL);
    } else {
        CHECK_GOT(kc, svc, "shared", "from the parent");
        CHECK_GOT(kc, svc, "child-new", NULL);
        CHECK_GOT(kc, svc, "doomed", "removed by the child");
    }
    CHECK_GOT(kc, svc, "never", NULL);
    /* The parent's handle (and its connection) still works. */
    CHECK_STATUS(set_str(kc, svc, "shared", "from the parent again"), KK_OK);
    CHECK_GOT(kc, svc, "shared", "from the parent again");
    CHECK_STATUS(set_str(kc, svc, "after", "written after the fork"), KK_OK);
    CHECK_GOT(kc, svc, "after", "written after the fork");
    CHECK_STATUS(kk_remove(kc, svc, "after"), KK_OK);
    CHECK_GOT(kc, svc, "after", NULL);
    kk_remove(kc, svc, "shared");
    kk_remove(kc, svc, "child-new");
    kk_remove(kc, svc, "doomed");
    kk_close(kc);
}

/* A parent whose handle never made a call before the fork: the child's
 * first call opens the connection (Secret Service), the parent's later. */
TEST(fork_child_uses_inherited_handle_never_used_before)
{
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    const char *svc = kt_service();
    pid_t pid = kt_fork();
    REQUIRE(CHECK(pid >= 0));
    if (pid == 0) {
        KT_CHILD(CHECK_GOT(kc, svc, "acct", NULL));
        KT_CHILD(CHECK_STATUS(set_str(kc, svc, "acct", "child"), KK_OK));
        KT_CHILD(CHECK_GOT(kc, svc, "acct", "child"));
        kt_child_exit();
    }
    REQUIRE(CHECK_CHILD(pid, "the child"));
    CHECK_GOT(kc, svc, "acct", shared_across_processes() ? "child" : NULL);
    CHECK_STATUS(set_str(kc, svc, "acct", "parent"), KK_OK);
    CHECK_GOT(kc, svc, "acct", "parent");
    CHECK_STATUS(kk_remove(kc, svc, "acct"), KK_OK);
    kk_close(kc);
}

/* A child that closes an inherited handle it never used: the parent's
 * connection is left alone (its socket copy closed, nothing sent), and
 * the child's own handle works. */
TEST(fork_child_closes_inherited_handle_unused)
{
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    const char *svc = kt_service();
    REQUIRE(CHECK_STATUS(set_str(kc, svc, "acct", "parent"), KK_OK));
    pid_t pid = kt_fork();
    REQUIRE(CHECK(pid >= 0));
    if (pid == 0) {
        kk_close(kc);
        kk_keychain *own = kt_open();
        if (KT_CHILD(CHECK(own != NULL))) {
            KT_CHILD(CHECK_GOT(own, svc, "acct", shared_across_processes() ? "parent" : NULL));
            KT_CHILD(CHECK_STATUS(set_str(own, svc, "child-own", "child"), KK_OK));
            KT_CHILD(CHECK_GOT(own, svc, "child-own", "child"));
            KT_CHILD(CHECK_STATUS(kk_remove(own, svc, "child-own"), KK_OK));
            kk_close(own);
        }
        kt_child_exit();
    }
    REQUIRE(CHECK_CHILD(pid, "the child"));
    CHECK_GOT(kc, svc, "acct", "parent");
    CHECK_STATUS(set_str(kc, svc, "acct", "parent again"), KK_OK);
    CHECK_GOT(kc, svc, "acct", "parent again");
    CHECK_STATUS(kk_remove(kc, svc, "acct"), KK_OK);
    kk_close(kc);
}

/* Grandchildren: a child forks again; each generation uses the handle. */
TEST(fork_grandchild_uses_inherited_handle)
{
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    const char *svc = kt_service();
    REQUIRE(CHECK_STATUS(set_str(kc, svc, "acct", "generation 0"), KK_OK));
    pid_t pid = kt_fork_with_alarm(2 * KT_CHILD_ALARM);
    REQUIRE(CHECK(pid >= 0));
    if (pid == 0) {
        KT_CHILD(CHECK_GOT(kc, svc, "acct", "generation 0"));
        KT_CHILD(CHECK_STATUS(set_str(kc, svc, "acct", "generation 1"), KK_OK));
        pid_t grandchild = kt_fork();
        if (!KT_CHILD(CHECK(grandchild >= 0))) kt_child_exit();
        if (grandchild == 0) {
            KT_CHILD(CHECK_GOT(kc, svc, "acct", "generation 1"));
            KT_CHILD(CHECK_STATUS(set_str(kc, svc, "acct", "generation 2"), KK_OK));
            KT_CHILD(CHECK_GOT(kc, svc, "acct", "generation 2"));
            kt_child_exit();
        }
        KT_CHILD(CHECK_CHILD(grandchild, "the grandchild"));
        KT_CHILD(CHECK_GOT(kc, svc, "acct", shared_across_processes() ? "generation 2" : "generation 1"));
        kt_child_exit();
    }
    REQUIRE(kt_check_child_at(__FILE__, __LINE__, pid, "the child", 3 * KT_CHILD_ALARM));
    CHECK_GOT(kc, svc, "acct", shared_across_processes() ? "generation 2" : "generation 0");
    CHECK_STATUS(kk_remove(kc, svc, "acct"), KK_OK);
    CHECK_GOT(kc, svc, "acct", NULL);
    kk_close(kc);
}

#define CHILDREN 4
#define KEYS_PER_CHILD 5

TEST(forked_children_write_at_once_through_inherited_handle)
{
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    const char *svc = kt_service();
    REQUIRE(CHECK_STATUS(set_str(kc, svc, "before", "written before the forks"), KK_OK));
    char account[64], value[64];
    /* The parent reads every key as absent first, so it may remember that. */
    for (int c = 0; c < CHILDREN; c++)
        for (int k = 0; k < KEYS_PER_CHILD; k++) {
            snprintf(account, sizeof account, "child%d-key%d", c, k);
            CHECK_GOT(kc, svc, account, NULL);
        }

    /* The children start together when the parent closes the pipe. */
    int go[2];
    REQUIRE(CHECK(pipe(go) == 0));
    pid_t pids[CHILDREN];
    int forked = 0;
    for (int c = 0; c < CHILDREN; c++) {
        pid_t pid = kt_fork();
        if (!CHECK(pid >= 0)) break;
        if (pid == 0) {
            close(go[1]);
            char byte;
            while (read(go[0], &byte, 1) < 0 && errno == EINTR) {
            }
            KT_CHILD(CHECK_GOT(kc, svc, "before", "written before the forks"));
            for (int round = 0; round < 2; round++)
                for (int k = 0; k < KEYS_PER_CHILD; k++) {
                    snprintf(account, sizeof account, "child%d-key%d", c, k);
                    snprintf(value, sizeof value, "child %d key %d round %d", c, k, round);
                    KT_CHILD(CHECK_STATUS(set_str(kc, svc, account, value), KK_OK));
                    KT_CHILD(CHECK_GOT(kc, svc, account, value));
                }
            kt_child_exit();
        }
        pids[forked++] = pid;
    }
    close(go[0]);
    close(go[1]);
    for (int i = 0; i < forked; i++) CHECK_CHILD(pids[i], "a writing child");
    REQUIRE(forked == CHILDREN);

    for (int c = 0; c < CHILDREN; c++)
        for (int k = 0; k < KEYS_PER_CHILD; k++) {
            snprintf(account, sizeof account, "child%d-key%d", c, k);
            snprintf(value, sizeof value, "child %d key %d round 1", c, k);
            CHECK_GOT(kc, svc, account, shared_across_processes() ? value : NULL);
            kk_remove(kc, svc, account);
        }
    CHECK_GOT(kc, svc, "before", "written before the forks");
    CHECK_STATUS(set_str(kc, svc, "before", "written after the forks"), KK_OK);
    CHECK_GOT(kc, svc, "before", "written after the forks");
    kk_remove(kc, svc, "before");
    kk_close(kc);
}

/* ---- fork while another thread is inside kk_get --------------------------- */

typedef struct looper {
    kk_keychain *kc;
    const char *svc;
    int writes; /* kk_set each time instead of kk_get */
    atomic_int stop;
    atomic_long reads;
    atomic_long bad;
} looper;

static void *loop_gets(void *arg)
{
    looper *l = arg;
    while (!atomic_load(&l->stop)) {
        if (l->writes) {
            kk_status st = set_str(l->kc, l->svc, "looped", "looped value");
            if (st != KK_OK && atomic_fetch_add(&l->bad, 1) == 0)
                CHECK_STATUS(st, KK_OK);
            atomic_fetch_add(&l->reads, 1);
            continue;
        }
        char *value = NULL;
        size_t len = 0;
        kk_status st = kk_get(l->kc, l->svc, "looped", &value, &len);
        if (st != KK_OK || len != 12 || memcmp(value, "looped value", 12) != 0) {
            if (atomic_fetch_add(&l->bad, 1) == 0)
                CHECK_STATUS(st, KK_OK); /* prints the first failure */
        }
        kk_secret_free(value);
        /* A key never seen before, each time: the handle records new keys
         * (data a fork() must not catch half-written). */
        char fresh[48];
        snprintf(fresh, sizeof fresh, "fresh-%ld", atomic_load(&l->reads));
        st = kk_exists(l->kc, l->svc, fresh);
        if (st != KK_ENOTFOUND && atomic_fetch_add(&l->bad, 1) == 0)
            CHECK_STATUS(st, KK_ENOTFOUND);
        atomic_fetch_add(&l->reads, 1);
    }
    return NULL;
}

/** Waits (at most 10 s) until the looper has done `more` reads more than
 *  `since`; returns whether it did. */
static int wait_for_reads(looper *l, long since, long more)
{
    double deadline = kt_now() + 10;
    while (atomic_load(&l->reads) < since + more) {
        if (kt_now() > deadline) return 0;
        kt_sleep_ms(1);
    }
    return 1;
}

/** Forks while another thread loops kk_get (or kk_set, with `writes`) on
 *  the same handle; each child reads, writes and removes through it. */
static void fork_while_another_thread_calls(int writes)
{
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    const char *svc = kt_service();
    REQUIRE(CHECK_STATUS(set_str(kc, svc, "looped", "looped value"), KK_OK));
    looper l = {.kc = kc, .svc = svc, .writes = writes};
    pthread_t thread;
    REQUIRE(CHECK(pthread_create(&thread, NULL, loop_gets, &l) == 0));

    /* On the Secret Service the looping thread holds the handle's lock (and
     * waits on its D-Bus call) nearly all the time, so nearly every fork
     * happens with it held; in memory a call is short, so fork more often;
     * a writer's lock is held for part of its time only. */
    int forks = writes ? 40 : shared_across_processes() ? 12 : 60;
    int passed = 0;
    char account[32], value[48];
    CHECK(wait_for_reads(&l, 0, 3));
    for (int f = 0; f < forks; f++) {
        long before = atomic_load(&l.reads);
        pid_t pid = kt_fork();
        if (!CHECK(pid >= 0)) break;
        if (pid == 0) {
            /* Only this thread exists here; the looper's kk_get never ends. */
            double start = kt_now();
            KT_CHILD(CHECK_GOT(kc, svc, "looped", "looped value"));
            snprintf(account, sizeof account, "child%d", f);
            snprintf(value, sizeof value, "written by child %d", f);
            KT_CHILD(CHECK_STATUS(set_str(kc, svc, account, value), KK_OK));
            KT_CHILD(CHECK_GOT(kc, svc, account, value));
            KT_CHILD(CHECK_STATUS(kk_remove(kc, svc, account), KK_OK));
            if (f % 4 == 0) child_opens_its_own_handle(kc, svc, "looped", "looped value");
            double took = kt_now() - start;
            if (!KT_CHILD(CHECK(took < 5.0))) printf("    child %d took %.2f s\n", f, took);
            kt_child_exit();
        }
        char what[48];
        snprintf(what, sizeof what, "child %d", f);
        if (!CHECK_CHILD(pid, what)) break; /* one hung child is enough */
        passed++;
        /* The next fork lands at another point of the looper's calls. */
        CHECK(wait_for_reads(&l, before, 1 + f % 3));
    }
    atomic_store(&l.stop, 1);
    pthread_join(thread, NULL);
    CHECK_EQ(passed, forks);
    CHECK_EQ(atomic_load(&l.bad), 0);
    CHECK(atomic_load(&l.reads) > forks);
    /* The parent's handle still works. */
    CHECK_GOT(kc, svc, "looped", "looped value");
    CHECK_STATUS(set_str(kc, svc, "looped", "changed after"), KK_OK);
    CHECK_GOT(kc, svc, "looped", "changed after");
    CHECK_STATUS(kk_remove(kc, svc, "looped"), KK_OK);
    kk_close(kc);
}

TEST(fork_while_another_thread_is_in_kk_get)
{
    fork_while_another_thread_calls(0);
}

/* Forks land while the parent's other thread writes. On the file store a
 * write holds the keyring's lock file: the child inherits its descriptor,
 * and flock's lock (the open file's) stayed held by the child until it
 * closed it, which it cannot know to do; each child hung on its own writes
 * and the parent's failed after 5 s, until a write unlocked before closing
 * (found by this test). A write also allocates and frees secret memory
 * within the handle's state; fork() drains such sections before it takes
 * the pool's lock (by reading the handlers' order: not reproduced here). */
TEST(fork_while_another_thread_is_in_kk_set)
{
    fork_while_another_thread_calls(1);
}

/* ---- observers -------------------------------------------------------------- */

/** The handle's own attempts an observer heard. Changes made elsewhere
 *  (the other process's writes, on the Secret Service) arrive on the
 *  delivery thread at their own time: only counted, apart. */
typedef struct seen {
    int calls;
    kk_event event;
    kk_status status;
    atomic_int elsewhere;
} seen;

static void remember(kk_event event, const char *service, const char *account, kk_status status,
                     void *userdata)
{
    (void)service;
    (void)account;
    seen *s = userdata;
    if (event == KK_EVENT_CHANGED || event == KK_EVENT_DELETED) {
        atomic_fetch_add(&s->elsewhere, 1);
        return;
    }
    s->calls++;
    s->event = event;
    s->status = status;
}

TEST(fork_child_keeps_observers_of_inherited_handle)
{
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    const char *svc = kt_service();
    seen s = {0};
    uint64_t token = 0;
    REQUIRE(CHECK_STATUS(kk_observe(kc, svc, "observed", remember, &s, NULL, &token), KK_OK));
    REQUIRE(CHECK_STATUS(set_str(kc, svc, "observed", "parent"), KK_OK));
    REQUIRE(CHECK_EQ(s.calls, 1));
    pid_t pid = kt_fork();
    REQUIRE(CHECK(pid >= 0));
    if (pid == 0) {
        /* `s` is the child's copy. */
        KT_CHILD(CHECK_STATUS(set_str(kc, svc, "observed", "child"), KK_OK));
        KT_CHILD(CHECK_EQ(s.calls, 2));
        KT_CHILD(CHECK_EQ(s.event, KK_EVENT_SET));
        KT_CHILD(CHECK_STATUS(s.status, KK_OK));
        KT_CHILD(CHECK_STATUS(kk_remove(kc, svc, "observed"), KK_OK));
        KT_CHILD(CHECK_EQ(s.calls, 3));
        KT_CHILD(CHECK_EQ(s.event, KK_EVENT_REMOVE));
        KT_CHILD(CHECK_STATUS(kk_unobserve(kc, token), KK_OK));
        KT_CHILD(CHECK_STATUS(set_str(kc, svc, "observed", "child again"), KK_OK));
        KT_CHILD(CHECK_EQ(s.calls, 3));
        kt_child_exit();
    }
    REQUIRE(CHECK_CHILD(pid, "the child"));
    CHECK_EQ(s.calls, 1); /* the child's calls were its own */
    CHECK_STATUS(set_str(kc, svc, "observed", "parent again"), KK_OK);
    CHECK_EQ(s.calls, 2);
    /* On the Secret Service and in a file the parent hears the child's
     * writes as changes made elsewhere; in memory the child's items were its
     * own copy; the kernel keyring announces no changes. */
    int hears_child = kt_current_backend() == KT_SECRET_SERVICE || kt_current_backend() == KT_FILE;
    for (int waited = 0; hears_child && atomic_load(&s.elsewhere) == 0 && waited < 3000; waited += 10)
        kt_sleep_ms(10);
    if (hears_child) CHECK(atomic_load(&s.elsewhere) >= 1);
    else CHECK_EQ(atomic_load(&s.elsewhere), 0);
    CHECK_STATUS(kk_unobserve(kc, token), KK_OK); /* still registered here */
    kk_remove(kc, svc, "observed");
    kk_close(kc);
}
