/* SPDX-License-Identifier: MIT */
/*
 * test_observer_threads.c — observers across threads: callbacks of several
 * threads run at the same time (no library lock is held while one runs),
 * and kk_unobserve during a running callback returns at once, with destroy
 * deferred until that callback has finished.
 */
#define _POSIX_C_SOURCE 200809L

#include "kt_keychain.h"

#include <pthread.h>
#include <stdint.h>
#include <time.h>

/** A meeting point for callbacks, with a time limit so a library that
 *  serializes them makes the test fail instead of hang. */
typedef struct meeting {
    pthread_mutex_t mutex;
    pthread_cond_t cond;
    int inside;        /* callbacks currently inside (on_block: entered) */
    int max_inside;    /* the most seen at once */
    int released;      /* set by the main thread */
    int finished;      /* callbacks that returned */
    int destroyed;
    int finished_when_destroyed;
} meeting;

#define MEETING_INIT {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, 0, 0, 0, 0}

/** Waits on m->cond until `done(m)` or `seconds` passed; m->mutex held. */
static void wait_until(meeting *m, int (*done)(meeting *), int seconds)
{
    struct timespec deadline;
    clock_gettime(CLOCK_REALTIME, &deadline);
    deadline.tv_sec += seconds;
    while (!done(m))
        if (pthread_cond_timedwait(&m->cond, &m->mutex, &deadline) != 0) break;
}

static int two_met(meeting *m) { return m->max_inside >= 2; }
static int is_released(meeting *m) { return m->released; }
static int one_inside(meeting *m) { return m->inside >= 1; }

/* Callback for the concurrency test: waits (2 s at most) for a second
 * callback to be inside at the same time. */
static void on_meet(kk_event e, const char *s, const char *a, kk_status st, void *userdata)
{
    (void)e; (void)s; (void)a; (void)st;
    meeting *m = userdata;
    pthread_mutex_lock(&m->mutex);
    m->inside++;
    if (m->inside > m->max_inside) m->max_inside = m->inside;
    pthread_cond_broadcast(&m->cond);
    wait_until(m, two_met, 2);
    m->inside--;
    pthread_mutex_unlock(&m->mutex);
}

typedef struct setter {
    kk_keychain *kc;
    const char *service;
    const char *account;
    kk_status status;
} setter;

static void *do_set(void *arg)
{
    setter *s = arg;
    s->status = kk_set(s->kc, s->service, s->account, "v", 1);
    return NULL;
}

TEST(callbacks_of_several_threads_run_at_once)
{
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    static meeting m = MEETING_INIT;
    uint64_t t1 = 0, t2 = 0;
    CHECK_STATUS(kk_observe(kc, kt_service(), "a", on_meet, &m, NULL, &t1), KK_OK);
    CHECK_STATUS(kk_observe(kc, kt_service(), "b", on_meet, &m, NULL, &t2), KK_OK);
    setter s1 = {kc, kt_service(), "a", 1}, s2 = {kc, kt_service(), "b", 1};
    pthread_t a, b;
    REQUIRE(pthread_create(&a, NULL, do_set, &s1) == 0);
    REQUIRE(pthread_create(&b, NULL, do_set, &s2) == 0);
    pthread_join(a, NULL);
    pthread_join(b, NULL);
    CHECK_STATUS(s1.status, KK_OK);
    CHECK_STATUS(s2.status, KK_OK);
    CHECK_EQ(m.max_inside, 2); /* 1: the callbacks were serialized */
    kk_close(kc);
}

/* Callback for the unobserve test: blocks until the main thread releases
 * it (5 s at most). */
static void on_block(kk_event e, const char *s, const char *a, kk_status st, void *userdata)
{
    (void)e; (void)s; (void)a; (void)st;
    meeting *m = userdata;
    pthread_mutex_lock(&m->mutex);
    m->inside++;
    pthread_cond_broadcast(&m->cond);
    wait_until(m, is_released, 5);
    m->finished++;
    pthread_mutex_unlock(&m->mutex);
}

static void on_block_destroy(void *userdata)
{
    meeting *m = userdata;
    pthread_mutex_lock(&m->mutex);
    m->destroyed++;
    m->finished_when_destroyed = m->finished;
    pthread_mutex_unlock(&m->mutex);
}

TEST(unobserve_during_a_callback_defers_destroy)
{
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    static meeting m = MEETING_INIT;
    uint64_t token = 0;
    REQUIRE(CHECK_STATUS(kk_observe(kc, kt_service(), "acct", on_block, &m, on_block_destroy, &token), KK_OK));
    setter s = {kc, kt_service(), "acct", 1};
    pthread_t thread;
    REQUIRE(pthread_create(&thread, NULL, do_set, &s) == 0);

    pthread_mutex_lock(&m.mutex);
    wait_until(&m, one_inside, 5);
    int entered = m.inside;
    pthread_mutex_unlock(&m.mutex);
    CHECK_EQ(entered, 1);

    /* The callback is running on the other thread: unobserve returns now,
     * and destroy waits for the callback. */
    CHECK_STATUS(kk_unobserve(kc, token), KK_OK);
    pthread_mutex_lock(&m.mutex);
    int destroyed_early = m.destroyed, finished_early = m.finished;
    m.released = 1;
    pthread_cond_broadcast(&m.cond);
    pthread_mutex_unlock(&m.mutex);
    CHECK_EQ(finished_early, 0); /* kk_unobserve did not wait for it */
    CHECK_EQ(destroyed_early, 0);

    pthread_join(thread, NULL);
    CHECK_STATUS(s.status, KK_OK);
    CHECK_EQ(m.destroyed, 1);
    CHECK_EQ(m.finished_when_destroyed, 1);
    CHECK_STATUS(kk_unobserve(kc, token), KK_EINVAL);
    kk_close(kc);
    CHECK_EQ(m.destroyed, 1);
}
