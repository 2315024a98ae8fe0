/* SPDX-License-Identifier: MIT */
/*
 * test_outside_changes.c — observers hear changes made elsewhere: by another
 * handle (on the memory backend, one opened with kk_open_memory_shared()),
 * by another process, and on the Secret Service by secret-tool. One outside
 * change, one callback, on the handle's delivery thread, for the right key
 * only; the handle's own writes only as KK_EVENT_SET/KK_EVENT_REMOVE;
 * nothing after kk_unobserve(), and again after a new first observer; a
 * delivery callback may unobserve itself; kk_close() while callbacks run
 * is clean; a fork()ed child that observes gets its own delivery thread,
 * and may close an observed handle at once. Python keyring's writes are
 * heard like secret-tool's.
 */
#define _POSIX_C_SOURCE 200809L

#include "kt_fork.h"
#include "kt_keychain.h"
#include "kt_secret_service.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/** How long an outside change may take to arrive (the contract: within a
 *  second; the slack is for loaded CI machines). */
#define ARRIVAL_MS 3000

/** How long to wait for something that must not come. */
#define QUIET_MS 400

/* ---- an observer that logs, thread-safe ------------------------------------ */

typedef struct event_log {
    pthread_mutex_t mutex;
    pthread_cond_t changed;
    int counts[5];          /* by kk_event */
    int wrong_key;          /* calls naming another key */
    int wrong_status;       /* outside changes with a status other than KK_OK */
    int on_own_thread;      /* outside changes delivered on the registering thread */
    pthread_t registrar;
    const char *service, *account;
    unsigned sleep_ms;      /* each callback sleeps this long */
    int destroyed;
} event_log;

static void log_init(event_log *log, const char *service, const char *account)
{
    memset(log, 0, sizeof *log);
    pthread_mutex_init(&log->mutex, NULL);
    pthread_cond_init(&log->changed, NULL);
    log->registrar = pthread_self();
    log->service = service;
    log->account = account;
}

static void log_event(kk_event event, const char *service, const char *account, kk_status status,
                      void *userdata)
{
    event_log *log = userdata;
    if (log->sleep_ms) kt_sleep_ms(log->sleep_ms);
    pthread_mutex_lock(&log->mutex);
    if (event >= 1 && event <= 4) log->counts[event]++;
    if (strcmp(service, log->service) != 0 || strcmp(account, log->account) != 0) log->wrong_key++;
    if (event >= KK_EVENT_CHANGED) {
        if (status != KK_OK) log->wrong_status++;
        if (pthread_equal(pthread_self(), log->registrar)) log->on_own_thread++;
    }
    pthread_cond_broadcast(&log->changed);
    pthread_mutex_unlock(&log->mutex);
}

static void log_destroy(void *userdata)
{
    event_log *log = userdata;
    pthread_mutex_lock(&log->mutex);
    log->destroyed++;
    pthread_mutex_unlock(&log->mutex);
}

/** The number of `event` callbacks so far. */
static int count(event_log *log, kk_event event)
{
    pthread_mutex_lock(&log->mutex);
    int n = log->counts[event];
    pthread_mutex_unlock(&log->mutex);
    return n;
}

/** Waits up to `ms` until `event` was called at least `n` times; returns
 *  the count then. */
static int wait_for(event_log *log, kk_event event, int n, int ms)
{
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += ms / 1000;
    until.tv_nsec += (long)(ms % 1000) * 1000000L;
    if (until.tv_nsec >= 1000000000L) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&log->mutex);
    while (log->counts[event] < n && pthread_cond_timedwait(&log->changed, &log->mutex, &until) == 0) {}
    int got = log->counts[event];
    pthread_mutex_unlock(&log->mutex);
    return got;
}

static uint64_t observe(kk_keychain *kc, event_log *log)
{
    uint64_t token = 0;
    CHECK_STATUS(kk_observe(kc, log->service, log->account, log_event, log, log_destroy, &token), KK_OK);
    return token;
}

static kk_status set_str(kk_keychain *kc, const char *svc, const char *account, const char *value)
{
    return kk_set(kc, svc, account, value, strlen(value));
}

/* ---- another handle ------------------------------------------------------------ */

/** Handle `a` observing (svc, account) into `log`, and handle `b` on the
 *  same items. */
typedef struct two_handles {
    kk_keychain *a, *b;
    const char *svc;
    event_log log;
    uint64_t token;
} two_handles;

/** Two items of (svc, account), as another tool can leave them. */
static int make_two_items(const char *svc, const char *account)
{
    return CHECK(kt_ss_create_item(svc, account, "duplicate", "one") == 0) &&
           CHECK(kt_ss_create_item(svc, account, "duplicate", "two") == 0);
}

/** Opens a handle in *a and another on the same items in *b; 0 after a
 *  failed check. */
static int open_pair(kk_keychain **a, kk_keychain **b)
{
    *a = kt_open();
    if (*a == NULL) return 0;
    *b = kt_open_other(*a);
    if (*b == NULL) {
        kk_close(*a);
        return 0;
    }
    return 1;
}

/** Opens both handles and registers the observer; 0 after a failed check. */
static int two_handles_open(two_handles *t, const char *account)
{
    t->svc = kt_service();
    if (!open_pair(&t->a, &t->b)) return 0;
    log_init(&t->log, t->svc, account);
    t->token = observe(t->a, &t->log);
    return 1;
}

static void two_handles_close(two_handles *t)
{
    kk_close(t->b);
    kk_close(t->a);
}

TEST_ON(KT_HEARS_OTHERS, another_handles_writes_are_changes_made_elsewhere)
{
    two_handles t;
    REQUIRE(two_handles_open(&t, "watched"));
    kk_keychain *a = t.a, *b = t.b;
    const char *svc = t.svc;
    event_log *log = &t.log;

    CHECK_STATUS(set_str(b, svc, "watched", "created by b"), KK_OK);
    CHECK_EQ(wait_for(log, KK_EVENT_CHANGED, 1, ARRIVAL_MS), 1);
    CHECK_GOT(a, svc, "watched", "created by b");
    CHECK_STATUS(set_str(b, svc, "watched", "updated by b"), KK_OK);
    CHECK_EQ(wait_for(log, KK_EVENT_CHANGED, 2, ARRIVAL_MS), 2);
    CHECK_STATUS(kk_remove(b, svc, "watched"), KK_OK);
    CHECK_EQ(wait_for(log, KK_EVENT_DELETED, 1, ARRIVAL_MS), 1);

    // Another key, and the same key's writes through a: nothing more.
    CHECK_STATUS(set_str(b, svc, "other", "x"), KK_OK);
    CHECK_STATUS(kk_remove(b, svc, "other"), KK_OK);
    kt_sleep_ms(QUIET_MS);
    CHECK_EQ(count(log, KK_EVENT_CHANGED), 2);
    CHECK_EQ(count(log, KK_EVENT_DELETED), 1);
    CHECK_EQ(count(log, KK_EVENT_SET) + count(log, KK_EVENT_REMOVE), 0);
    CHECK_EQ(log->wrong_key, 0);
    CHECK_EQ(log->wrong_status, 0);
    CHECK_EQ(log->on_own_thread, 0);
    two_handles_close(&t);
    CHECK_EQ(log->destroyed, 1);
}

TEST(own_writes_are_reported_once_as_set_and_remove)
{
    two_handles t;  // b makes a's items shared, in memory too
    REQUIRE(two_handles_open(&t, "mine"));
    kk_keychain *a = t.a;
    const char *svc = t.svc;
    event_log *log = &t.log;
    for (int i = 0; i < 5; i++) CHECK_STATUS(set_str(a, svc, "mine", i % 2 ? "odd" : "even"), KK_OK);
    CHECK_STATUS(kk_remove(a, svc, "mine"), KK_OK);
    kt_sleep_ms(QUIET_MS);
    CHECK_EQ(count(log, KK_EVENT_SET), 5);
    CHECK_EQ(count(log, KK_EVENT_REMOVE), 1);
    CHECK_EQ(count(log, KK_EVENT_CHANGED), 0);
    CHECK_EQ(count(log, KK_EVENT_DELETED), 0);
    two_handles_close(&t);
}

TEST_ON(KT_HEARS_OTHERS, a_removal_right_after_an_own_write_is_heard)
{
    two_handles t;
    REQUIRE(two_handles_open(&t, "k"));
    kk_keychain *a = t.a, *b = t.b;
    const char *svc = t.svc;
    event_log *log = &t.log;
    CHECK_STATUS(set_str(a, svc, "k", "own"), KK_OK);
    CHECK_STATUS(kk_remove(b, svc, "k"), KK_OK);  // at once: never the echo of a's write
    CHECK_EQ(wait_for(log, KK_EVENT_DELETED, 1, ARRIVAL_MS), 1);
    CHECK_EQ(count(log, KK_EVENT_SET), 1);
    two_handles_close(&t);
}

TEST_ON(KT_HEARS_OTHERS, after_unobserve_nothing_is_heard)
{
    two_handles t;
    REQUIRE(two_handles_open(&t, "k"));
    kk_keychain *a = t.a, *b = t.b;
    const char *svc = t.svc;
    event_log *log = &t.log;
    uint64_t token = t.token;
    CHECK_STATUS(set_str(b, svc, "k", "1"), KK_OK);
    CHECK_EQ(wait_for(log, KK_EVENT_CHANGED, 1, ARRIVAL_MS), 1);
    CHECK_STATUS(kk_unobserve(a, token), KK_OK);
    CHECK_STATUS(set_str(b, svc, "k", "2"), KK_OK);
    CHECK_STATUS(kk_remove(b, svc, "k"), KK_OK);
    kt_sleep_ms(QUIET_MS);
    CHECK_EQ(count(log, KK_EVENT_CHANGED), 1);
    CHECK_EQ(count(log, KK_EVENT_DELETED), 0);
    CHECK_EQ(log->destroyed, 1);
    two_handles_close(&t);
}

TEST_ON(KT_HEARS_OTHERS, observers_of_other_keys_hear_no_change_made_elsewhere)
{
    two_handles t;
    REQUIRE(two_handles_open(&t, "a"));
    char other_service[256];
    snprintf(other_service, sizeof other_service, "%s.other", t.svc);
    event_log other_account, same_account_elsewhere;
    log_init(&other_account, t.svc, "b");
    log_init(&same_account_elsewhere, other_service, "a");
    observe(t.a, &other_account);
    observe(t.a, &same_account_elsewhere);
    CHECK_STATUS(set_str(t.b, t.svc, "a", "x"), KK_OK);
    CHECK_EQ(wait_for(&t.log, KK_EVENT_CHANGED, 1, ARRIVAL_MS), 1); /* else coalesced with the removal */
    CHECK_STATUS(kk_remove(t.b, t.svc, "a"), KK_OK);
    CHECK_EQ(wait_for(&t.log, KK_EVENT_DELETED, 1, ARRIVAL_MS), 1);
    kt_sleep_ms(QUIET_MS);
    event_log *quiet[] = {&other_account, &same_account_elsewhere};
    for (int i = 0; i < 2; i++) {
        for (int event = KK_EVENT_SET; event <= KK_EVENT_DELETED; event++)
            CHECK_EQ(count(quiet[i], (kk_event)event), 0);
        CHECK_EQ(quiet[i]->wrong_key, 0);
    }
    two_handles_close(&t);
    CHECK_EQ(other_account.destroyed + same_account_elsewhere.destroyed, 2);
}

TEST_ON(KT_HEARS_OTHERS, a_new_first_observer_after_the_last_unobserve_hears_again)
{
    two_handles t;
    REQUIRE(two_handles_open(&t, "k"));
    CHECK_STATUS(set_str(t.b, t.svc, "k", "heard"), KK_OK);
    CHECK_EQ(wait_for(&t.log, KK_EVENT_CHANGED, 1, ARRIVAL_MS), 1);
    CHECK_STATUS(kk_unobserve(t.a, t.token), KK_OK); /* the last one: the delivery thread ends */
    CHECK_STATUS(set_str(t.b, t.svc, "k", "not heard"), KK_OK);
    CHECK_STATUS(kk_remove(t.b, t.svc, "k"), KK_OK);
    kt_sleep_ms(QUIET_MS);
    event_log again;
    log_init(&again, t.svc, "k");
    observe(t.a, &again); /* a new first observer: a new delivery thread */
    CHECK_STATUS(set_str(t.b, t.svc, "k", "heard again"), KK_OK);
    CHECK_EQ(wait_for(&again, KK_EVENT_CHANGED, 1, ARRIVAL_MS), 1);
    kt_sleep_ms(QUIET_MS);
    CHECK_EQ(count(&again, KK_EVENT_CHANGED), 1);
    CHECK_EQ(count(&again, KK_EVENT_DELETED), 0); /* nothing from before it was registered */
    CHECK_EQ(again.on_own_thread, 0);
    CHECK_EQ(count(&t.log, KK_EVENT_CHANGED), 1);
    CHECK_EQ(count(&t.log, KK_EVENT_DELETED), 0);
    CHECK_STATUS(kk_remove(t.b, t.svc, "k"), KK_OK);
    two_handles_close(&t);
    CHECK_EQ(again.destroyed, 1);
}

/** A delivery callback that unobserves itself. */
typedef struct self_unobserving {
    kk_keychain *kc;
    _Atomic uint64_t token;
    atomic_int calls, status, destroyed;
} self_unobserving;

static void unobserve_self(kk_event event, const char *service, const char *account, kk_status status,
                           void *userdata)
{
    (void)event, (void)service, (void)account, (void)status;
    self_unobserving *s = userdata;
    atomic_fetch_add(&s->calls, 1);
    atomic_store(&s->status, kk_unobserve(s->kc, atomic_load(&s->token)));
}

static void count_destroy(void *userdata)
{
    atomic_fetch_add(&((self_unobserving *)userdata)->destroyed, 1);
}

TEST_ON(KT_HEARS_OTHERS, a_delivery_callback_may_unobserve_itself)
{
    kk_keychain *a, *b;
    REQUIRE(open_pair(&a, &b));
    const char *svc = kt_service();
    self_unobserving s = {.kc = a, .status = 1};
    uint64_t token = 0;
    /* The handle's only observer: unobserving it ends the delivery thread
     * the callback runs on, which must not wait for itself. */
    REQUIRE(CHECK_STATUS(kk_observe(a, svc, "k", unobserve_self, &s, count_destroy, &token), KK_OK));
    atomic_store(&s.token, token);
    CHECK_STATUS(set_str(b, svc, "k", "heard once"), KK_OK);
    for (int waited = 0; waited < ARRIVAL_MS && atomic_load(&s.calls) == 0; waited += 10) kt_sleep_ms(10);
    CHECK_EQ(atomic_load(&s.calls), 1);
    CHECK_STATUS(set_str(b, svc, "k", "not heard"), KK_OK);
    kt_sleep_ms(QUIET_MS);
    CHECK_EQ(atomic_load(&s.calls), 1);
    CHECK_STATUS(atomic_load(&s.status), KK_OK);
    CHECK_EQ(atomic_load(&s.destroyed), 1);
    CHECK_STATUS(kk_unobserve(a, token), KK_EINVAL); /* already removed */
    CHECK_GOT(a, svc, "k", "not heard");               /* the handle still works */
    CHECK_STATUS(kk_remove(b, svc, "k"), KK_OK);
    kk_close(b);
    kk_close(a);
    CHECK_EQ(atomic_load(&s.destroyed), 1);
}

TEST_ON(KT_HEARS_OTHERS, close_while_a_delivery_callback_runs_is_clean)
{
    two_handles t;
    REQUIRE(two_handles_open(&t, "slow"));
    kk_keychain *a = t.a, *b = t.b;
    const char *svc = t.svc;
    event_log *log = &t.log;
    log->sleep_ms = 300;  // callbacks from now on sleep
    CHECK_STATUS(set_str(b, svc, "slow", "1"), KK_OK);
    kt_sleep_ms(150);  // the callback is (most likely) sleeping now
    kk_close(a);       // waits for it
    CHECK_EQ(log->destroyed, 1);
    CHECK(count(log, KK_EVENT_CHANGED) <= 1);
    CHECK_STATUS(kk_remove(b, svc, "slow"), KK_OK);
    kk_close(b);
}

/** A delivery callback that closes its handle, and one after it that would
 *  use the handle. */
typedef struct closing {
    kk_keychain *kc;
    int closed, used;
} closing;

static void close_in_callback(kk_event event, const char *service, const char *account, kk_status status,
                              void *userdata)
{
    (void)event, (void)service, (void)account, (void)status;
    closing *c = userdata;
    if (c->closed++ == 0) kk_close(c->kc);
}

static void use_in_callback(kk_event event, const char *service, const char *account, kk_status status,
                            void *userdata)
{
    (void)event, (void)status;
    closing *c = userdata;
    c->used++;
    char *value = NULL;
    kk_get(c->kc, service, account, &value, NULL); /* freed memory, were it called */
    kk_secret_free(value);
}

TEST_ON(KT_HEARS_OTHERS, a_delivery_callback_that_closes_the_handle_stops_the_next)
{
    kk_keychain *a, *b;
    REQUIRE(open_pair(&a, &b));
    const char *svc = kt_service();
    closing c = {.kc = a};
    uint64_t token = 0;
    REQUIRE(CHECK_STATUS(kk_observe(a, svc, "k", close_in_callback, &c, NULL, &token), KK_OK));
    REQUIRE(CHECK_STATUS(kk_observe(a, svc, "k", use_in_callback, &c, NULL, &token), KK_OK));
    CHECK_STATUS(set_str(b, svc, "k", "1"), KK_OK);
    for (int waited = 0; waited < ARRIVAL_MS && c.closed == 0; waited += 10) kt_sleep_ms(10);
    kt_sleep_ms(QUIET_MS);
    CHECK_EQ(c.closed, 1);
    CHECK_EQ(c.used, 0); /* never started after kk_close (valgrind and ASan run this too) */
    CHECK_STATUS(kk_remove(b, svc, "k"), KK_OK);
    kk_close(b);
}

/** A delivery callback that runs until the test has unobserved it (at
 *  most 5 s; a write on KeePassXC may wait out its save first, RELIABILITY.md),
 *  and notes whether it ever began after kk_unobserve() returned on
 *  another thread. */
typedef struct long_callback {
    pthread_mutex_t mutex;
    int calls, running, unobserved, started_after_unobserve;
} long_callback;

static void run_long(kk_event event, const char *service, const char *account, kk_status status, void *userdata)
{
    (void)event, (void)service, (void)account, (void)status;
    long_callback *l = userdata;
    pthread_mutex_lock(&l->mutex);
    l->calls++;
    l->running = 1;
    if (l->unobserved) l->started_after_unobserve++;
    pthread_mutex_unlock(&l->mutex);
    for (int slept = 0, done = 0; !done && slept < 5000; slept += 10) {
        kt_sleep_ms(10);
        pthread_mutex_lock(&l->mutex);
        done = l->unobserved;
        pthread_mutex_unlock(&l->mutex);
    }
    pthread_mutex_lock(&l->mutex);
    l->running = 0;
    pthread_mutex_unlock(&l->mutex);
}

TEST_ON(KT_HEARS_OTHERS, after_unobserve_returns_no_queued_change_is_delivered)
{
    kk_keychain *a, *b;
    REQUIRE(open_pair(&a, &b));
    const char *svc = kt_service();
    long_callback l = {.mutex = PTHREAD_MUTEX_INITIALIZER};
    uint64_t token = 0, other = 0;
    REQUIRE(CHECK_STATUS(kk_observe(a, svc, "k", run_long, &l, NULL, &token), KK_OK));
    /* Another key observed: removing the first observer keeps the delivery
     * thread (ending it with the last observer is tested above). */
    event_log others;
    log_init(&others, svc, "other");
    REQUIRE(CHECK_STATUS(kk_observe(a, svc, "other", log_event, &others, log_destroy, &other), KK_OK));
    CHECK_STATUS(set_str(b, svc, "k", "1"), KK_OK);
    for (int waited = 0; waited < ARRIVAL_MS; waited += 5) {
        pthread_mutex_lock(&l.mutex);
        int running = l.running;
        pthread_mutex_unlock(&l.mutex);
        if (running) break;
        kt_sleep_ms(5);
    }
    CHECK_STATUS(set_str(b, svc, "k", "2"), KK_OK); /* queued behind the running callback */
    kt_sleep_ms(100);
    CHECK_STATUS(kk_unobserve(a, token), KK_OK); /* does not wait for the running call */
    pthread_mutex_lock(&l.mutex);
    l.unobserved = 1;
    pthread_mutex_unlock(&l.mutex);
    CHECK_STATUS(set_str(b, svc, "k", "3"), KK_OK);
    kt_sleep_ms(600 + QUIET_MS);
    CHECK_EQ(l.calls, 1);
    CHECK_EQ(l.started_after_unobserve, 0);
    CHECK_EQ(count(&others, KK_EVENT_CHANGED), 0);
    CHECK_STATUS(kk_remove(b, svc, "k"), KK_OK);
    kk_close(b);
    kk_close(a);
}

TEST_ON(KT_HEARS_OTHERS, own_writes_while_a_callback_runs_long_are_still_own)
{
    two_handles t;  // a observes "slow" (callbacks sleep) and "own"
    REQUIRE(two_handles_open(&t, "slow"));
    t.log.sleep_ms = 600;
    event_log own;
    log_init(&own, t.svc, "own");
    observe(t.a, &own);
    CHECK_STATUS(set_str(t.b, t.svc, "slow", "keeps a's delivery thread busy"), KK_OK);
    kt_sleep_ms(100);  // the slow callback runs: a's watcher reads nothing meanwhile
    CHECK_STATUS(set_str(t.a, t.svc, "own", "created"), KK_OK);
    CHECK_STATUS(kk_remove(t.a, t.svc, "own"), KK_OK);
    kt_sleep_ms(600 + QUIET_MS);  // the echoes are read late, and taken for echoes
    CHECK_EQ(count(&own, KK_EVENT_SET), 1);
    CHECK_EQ(count(&own, KK_EVENT_REMOVE), 1);
    CHECK_EQ(count(&own, KK_EVENT_CHANGED) + count(&own, KK_EVENT_DELETED), 0);
    CHECK_STATUS(kk_remove(t.b, t.svc, "slow"), KK_OK);
    two_handles_close(&t);
}

/* ---- other processes (Secret Service) ------------------------------------------ */

/** Observes a key while secret-tool creates it, replaces it `replaces`
 *  times, and clears it: one KK_EVENT_CHANGED per store, one
 *  KK_EVENT_DELETED. */
static void check_secret_tool_writes_are_heard(int replaces)
{
    kk_keychain *a = kt_open();
    REQUIRE(a != NULL);
    const char *svc = kt_service();
    event_log log;
    log_init(&log, svc, "tool");
    observe(a, &log);
    const char *values[] = {"first", "replaced"};
    for (int store = 0; store <= replaces; store++) {
        CHECK(kt_secret_tool_store(svc, "tool", "secret-tool", values[store]) == 0);
        CHECK_EQ(wait_for(&log, KK_EVENT_CHANGED, store + 1, ARRIVAL_MS), store + 1);
        CHECK_GOT(a, svc, "tool", values[store]);
    }
    CHECK(kt_secret_tool_clear(svc, "tool") == 0);
    CHECK_EQ(wait_for(&log, KK_EVENT_DELETED, 1, ARRIVAL_MS), 1);
    CHECK_STATUS(kk_exists(a, svc, "tool"), KK_ENOTFOUND);
    kt_sleep_ms(QUIET_MS);
    CHECK_EQ(count(&log, KK_EVENT_CHANGED), replaces + 1);
    CHECK_EQ(count(&log, KK_EVENT_DELETED), 1);
    kk_close(a);
}

TEST_ON(KT_SECRET_SERVICE, secret_tool_create_and_clear_are_heard)
{
    check_secret_tool_writes_are_heard(0);
}

TEST_EXCEPT_ON_SERVER(KT_SECRET_SERVICE, "keepassxc",
                      "secret-tool store over an existing item never returns on KeePassXC 2.7.4 "
                      "(libsecret 0.20.5: GLib-GIO-CRITICAL g_task_return_error)",
                      secret_tool_replace_is_heard)
{
    check_secret_tool_writes_are_heard(1);
}

TEST_ON(KT_SECRET_SERVICE, python_keyrings_set_and_delete_are_heard)
{
    kk_keychain *a = kt_open();
    REQUIRE(a != NULL);
    const char *svc = kt_service();
    event_log log, other;
    log_init(&log, svc, "keyring");
    log_init(&other, svc, "other");
    observe(a, &log);
    observe(a, &other);
    /* An item with keyring's attributes (service, username, application). */
    CHECK(kt_keyring_set_password(svc, "keyring", "from keyring") == 0);
    CHECK_EQ(wait_for(&log, KK_EVENT_CHANGED, 1, ARRIVAL_MS), 1);
    CHECK_GOT(a, svc, "keyring", "from keyring");
    CHECK(kt_secret_tool_clear(svc, "keyring") == 0); /* as keyring's delete_password: Item.Delete */
    CHECK_EQ(wait_for(&log, KK_EVENT_DELETED, 1, ARRIVAL_MS), 1);
    CHECK_STATUS(kk_exists(a, svc, "keyring"), KK_ENOTFOUND);
    kt_sleep_ms(QUIET_MS);
    CHECK_EQ(count(&log, KK_EVENT_CHANGED), 1);
    CHECK_EQ(count(&log, KK_EVENT_DELETED), 1);
    CHECK_EQ(log.wrong_key, 0);
    CHECK_EQ(count(&other, KK_EVENT_CHANGED) + count(&other, KK_EVENT_DELETED), 0);
    kk_close(a);
}

/** A child process that writes through a handle of its own. */
static _Noreturn void writer_process(const char *svc, const char *account)
{
    kk_keychain *kc = kt_open();
    if (KT_CHILD(CHECK(kc != NULL))) {
        KT_CHILD(CHECK_STATUS(set_str(kc, svc, account, "in place from another process"), KK_OK));
        kk_close(kc);
    }
    kt_child_exit();
}

TEST_ON(KT_SECRET_SERVICE, another_process_updating_in_place_is_heard)
{
    kk_keychain *a = kt_open();
    REQUIRE(a != NULL);
    const char *svc = kt_service();
    CHECK_STATUS(set_str(a, svc, "shared", "before"), KK_OK);
    event_log log;
    log_init(&log, svc, "shared");
    observe(a, &log);
    pid_t pid = kt_fork();
    REQUIRE(pid >= 0);
    if (pid == 0) writer_process(svc, "shared");  // SetSecret: announced by our own signal
    CHECK_CHILD(pid, "the writer");
    CHECK_EQ(wait_for(&log, KK_EVENT_CHANGED, 1, ARRIVAL_MS), 1);
    CHECK_GOT(a, svc, "shared", "in place from another process");
    kt_sleep_ms(QUIET_MS);
    CHECK_EQ(count(&log, KK_EVENT_CHANGED), 1);
    CHECK_STATUS(kk_remove(a, svc, "shared"), KK_OK);
    kk_close(a);
}

TEST_ON(KT_SECRET_SERVICE, a_forked_child_that_observes_hears_changes)
{
    kk_keychain *a = kt_open();
    REQUIRE(a != NULL);
    const char *svc = kt_service();
    CHECK_STATUS(set_str(a, svc, "forked", "written before the fork"), KK_OK);
    event_log parent_log;
    log_init(&parent_log, svc, "forked");
    observe(a, &parent_log);  // the parent's delivery thread runs
    int ready[2];
    REQUIRE(pipe(ready) == 0);
    pid_t pid = kt_fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        // The inherited handle: the parent's writes are another process's now.
        event_log log;
        log_init(&log, svc, "forked");
        uint64_t token = 0;
        KT_CHILD(CHECK_STATUS(kk_observe(a, svc, "forked", log_event, &log, NULL, &token), KK_OK));
        char byte = 'r';
        KT_CHILD(CHECK(kt_write_all(ready[1], &byte, 1)));
        KT_CHILD(CHECK_EQ(wait_for(&log, KK_EVENT_CHANGED, 1, ARRIVAL_MS), 1));  // the parent's update
        kk_keychain *other = kt_open();
        if (KT_CHILD(CHECK(other != NULL))) {
            KT_CHILD(CHECK_STATUS(kk_remove(other, svc, "forked"), KK_OK));
            KT_CHILD(CHECK_EQ(wait_for(&log, KK_EVENT_DELETED, 1, ARRIVAL_MS), 1));
            kk_close(other);
        }
        kt_child_exit();
    }
    char byte = 0;
    if (CHECK(kt_read_all(ready[0], &byte, 1, 10000)))
        CHECK_STATUS(set_str(a, svc, "forked", "updated in place by the parent"), KK_OK);
    CHECK_CHILD(pid, "the observing child");
    CHECK_EQ(wait_for(&parent_log, KK_EVENT_DELETED, 1, ARRIVAL_MS), 1);  // the child's removal
    CHECK_EQ(count(&parent_log, KK_EVENT_SET), 1);
    close(ready[0]);
    close(ready[1]);
    kk_close(a);
}

/* The memory backend too: in a child, another handle on the child's copy of
 * the items (kk_open_memory_shared), on the Secret Service another handle. */
TEST_ON(KT_HEARS_OTHERS, a_forked_child_hears_its_own_handles_changes_on_its_own_delivery_thread)
{
    two_handles t;  // a observes "parent": its delivery thread runs at the fork
    REQUIRE(two_handles_open(&t, "parent"));
    CHECK_STATUS(set_str(t.b, t.svc, "parent", "before the fork"), KK_OK);
    REQUIRE(CHECK_EQ(wait_for(&t.log, KK_EVENT_CHANGED, 1, ARRIVAL_MS), 1));
    pid_t pid = kt_fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        event_log log;
        log_init(&log, t.svc, "child");
        uint64_t token = 0;
        KT_CHILD(CHECK_STATUS(kk_observe(t.a, t.svc, "child", log_event, &log, log_destroy, &token), KK_OK));
        kk_keychain *own = kt_open_other(t.a);
        if (KT_CHILD(CHECK(own != NULL))) {
            KT_CHILD(CHECK_STATUS(set_str(own, t.svc, "child", "from the child's own handle"), KK_OK));
            KT_CHILD(CHECK_EQ(wait_for(&log, KK_EVENT_CHANGED, 1, ARRIVAL_MS), 1));
            KT_CHILD(CHECK_STATUS(set_str(t.a, t.svc, "child", "through the inherited handle"), KK_OK));
            KT_CHILD(CHECK_STATUS(kk_remove(own, t.svc, "child"), KK_OK));
            KT_CHILD(CHECK_EQ(wait_for(&log, KK_EVENT_DELETED, 1, ARRIVAL_MS), 1));
            kt_sleep_ms(QUIET_MS);
            KT_CHILD(CHECK_EQ(count(&log, KK_EVENT_CHANGED), 1));
            KT_CHILD(CHECK_EQ(count(&log, KK_EVENT_SET), 1));
            KT_CHILD(CHECK_EQ(count(&log, KK_EVENT_DELETED), 1));
            KT_CHILD(CHECK_EQ(log.on_own_thread, 0)); /* the child's delivery thread */
            KT_CHILD(CHECK_EQ(log.wrong_key, 0));
            kk_close(own);
        }
        kk_close(t.a); /* ends the child's delivery thread, never waits for the parent's */
        KT_CHILD(CHECK_EQ(log.destroyed, 1));
        kt_child_exit();
    }
    CHECK_CHILD(pid, "the observing child");
    /* The parent's delivery thread still runs. */
    CHECK_STATUS(set_str(t.b, t.svc, "parent", "after the fork"), KK_OK);
    CHECK_EQ(wait_for(&t.log, KK_EVENT_CHANGED, 2, ARRIVAL_MS), 2);
    CHECK_EQ(t.log.on_own_thread, 0);
    CHECK_EQ(t.log.wrong_key, 0);
    CHECK_STATUS(kk_remove(t.b, t.svc, "parent"), KK_OK);
    two_handles_close(&t);
}

TEST(a_forked_child_may_close_an_observed_handle_at_once)
{
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    const char *svc = kt_service();
    event_log log;
    log_init(&log, svc, "k");
    observe(kc, &log); /* the parent's delivery thread (on the backends that hear others) */
    pid_t pid = kt_fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
        double start = kt_now();
        kk_close(kc); /* the first call in the child: nothing of the parent's to wait for */
        KT_CHILD(CHECK(kt_now() - start < 2.0));
        KT_CHILD(CHECK_EQ(log.destroyed, 1));
        kt_child_exit();
    }
    CHECK_CHILD(pid, "the closing child");
    CHECK_EQ(log.destroyed, 0);
    CHECK_STATUS(set_str(kc, svc, "k", "the parent's handle still works"), KK_OK);
    CHECK_GOT(kc, svc, "k", "the parent's handle still works");
    CHECK_EQ(count(&log, KK_EVENT_SET), 1);
    CHECK_STATUS(kk_remove(kc, svc, "k"), KK_OK);
    kk_close(kc);
    CHECK_EQ(log.destroyed, 1);
}

TEST_ON(KT_SECRET_SERVICE, a_write_collapsing_duplicates_is_a_change_not_a_removal)
{
    two_handles t;
    REQUIRE(make_two_items(t.svc = kt_service(), "dup"));
    REQUIRE(two_handles_open(&t, "dup"));  // a knows both items
    CHECK_STATUS(set_str(t.b, t.svc, "dup", "collapsed by b"), KK_OK);
    CHECK(wait_for(&t.log, KK_EVENT_CHANGED, 1, ARRIVAL_MS) >= 1);
    kt_sleep_ms(QUIET_MS);
    CHECK_EQ(count(&t.log, KK_EVENT_DELETED), 0);
    /* The new value and the duplicate's removal are one callback when they
     * reach the watcher within KK_OBSERVE_COALESCE_MS of each other, two otherwise
     * (seen on KWallet on a loaded machine): never more. */
    int changes = count(&t.log, KK_EVENT_CHANGED);
    CHECK(changes == 1 || changes == 2);
    CHECK_GOT(t.a, t.svc, "dup", "collapsed by b");
    CHECK_STATUS(kk_remove(t.a, t.svc, "dup"), KK_OK);
    two_handles_close(&t);
}
