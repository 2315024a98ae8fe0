/* SPDX-License-Identifier: MIT */
/*
 * test_observers.c — kk_observe / kk_unobserve: what a callback receives
 * and when, which observers are called, re-entrant callbacks, the destroy
 * contract, tokens.
 */
#include "kt_keychain.h"

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/** What one observer saw. Single-threaded tests only. */
typedef struct recorder {
    int calls;
    kk_event event;
    char service[256];
    char account[256];
    kk_status status;
    int on_calling_thread;
    pthread_t caller;
    int destroyed;
    /* For callbacks that call back into the library: */
    kk_keychain *kc;
    uint64_t token;
    int get_in_callback;     /* kk_get's status inside the last callback */
    char value_in_callback[64];
    int unobserve_in_callback; /* 1: call kk_unobserve(own token) */
    int unobserve_status;
    int close_in_callback;   /* 1: call kk_close(kc) */
    const char *set_other_account; /* non-NULL: kk_set that key of the same service */
    int set_other_status;
    uint64_t unobserve_other;  /* non-zero: kk_unobserve that token in the callback */
} recorder;

static recorder *new_recorder(kk_keychain *kc)
{
    recorder *r = calloc(1, sizeof *r);
    if (r != NULL) {
        r->kc = kc;
        r->caller = pthread_self();
        r->get_in_callback = 1; /* not a status */
    }
    return r;
}

static void record(kk_event event, const char *service, const char *account, kk_status status,
                   void *userdata)
{
    recorder *r = userdata;
    r->calls++;
    r->event = event;
    snprintf(r->service, sizeof r->service, "%s", service ? service : "(NULL)");
    snprintf(r->account, sizeof r->account, "%s", account ? account : "(NULL)");
    r->status = status;
    r->on_calling_thread = pthread_equal(pthread_self(), r->caller);
    if (r->unobserve_in_callback) r->unobserve_status = kk_unobserve(r->kc, r->token);
    if (r->unobserve_other != 0) r->unobserve_status = kk_unobserve(r->kc, r->unobserve_other);
    if (r->set_other_account != NULL)
        r->set_other_status = kk_set(r->kc, service, r->set_other_account, "o", 1);
    if (r->close_in_callback) {
        kk_close(r->kc);
        return;
    }
    if (r->kc != NULL) {
        char *value = NULL;
        size_t len = 0;
        r->get_in_callback = kk_get(r->kc, service, account, &value, &len);
        r->value_in_callback[0] = '\0';
        if (value != NULL && len < sizeof r->value_in_callback) memcpy(r->value_in_callback, value, len + 1);
        kk_secret_free(value);
    }
}

static void destroy_recorder(void *userdata)
{
    recorder *r = userdata;
    r->destroyed++;
}

/** Observes (service, account) with `r`; returns the token (0 on failure). */
static uint64_t observe(kk_keychain *kc, const char *service, const char *account, recorder *r)
{
    uint64_t token = 0;
    if (!CHECK_STATUS(kk_observe(kc, service, account, record, r, destroy_recorder, &token), KK_OK))
        return 0;
    CHECK(token != 0);
    r->token = token;
    return token;
}

TEST(observer_hears_set_and_remove)
{
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    recorder *r = new_recorder(NULL);
    REQUIRE(r != NULL);
    REQUIRE(observe(kc, kt_service(), "acct", r) != 0);

    CHECK_STATUS(kk_set(kc, kt_service(), "acct", "v1", 2), KK_OK);
    CHECK_EQ(r->calls, 1); /* before kk_set returned */
    CHECK_EQ(r->event, KK_EVENT_SET);
    CHECK_STR_EQ(r->service, kt_service());
    CHECK_STR_EQ(r->account, "acct");
    CHECK_EQ(r->status, KK_OK);
    CHECK(r->on_calling_thread);

    CHECK_STATUS(kk_remove(kc, kt_service(), "acct"), KK_OK);
    CHECK_EQ(r->calls, 2);
    CHECK_EQ(r->event, KK_EVENT_REMOVE);
    CHECK_STR_EQ(r->service, kt_service());
    CHECK_STR_EQ(r->account, "acct");
    CHECK_EQ(r->status, KK_OK);
    CHECK(r->on_calling_thread);
    kk_close(kc);
    CHECK_EQ(r->destroyed, 1);
    free(r);
}

TEST(observer_hears_equal_values_and_absent_removes)
{
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    recorder *r = new_recorder(NULL);
    REQUIRE(r != NULL);
    REQUIRE(observe(kc, kt_service(), "acct", r) != 0);
    CHECK_STATUS(kk_set(kc, kt_service(), "acct", "same", 4), KK_OK);
    CHECK_STATUS(kk_set(kc, kt_service(), "acct", "same", 4), KK_OK);
    CHECK_EQ(r->calls, 2);
    CHECK_EQ(r->event, KK_EVENT_SET);
    CHECK_STATUS(kk_remove(kc, kt_service(), "acct"), KK_OK);
    CHECK_STATUS(kk_remove(kc, kt_service(), "acct"), KK_OK); /* absent now */
    CHECK_EQ(r->calls, 4);
    CHECK_EQ(r->event, KK_EVENT_REMOVE);
    CHECK_EQ(r->status, KK_OK);
    kk_close(kc);
    free(r);
}

TEST(rejected_arguments_do_not_notify)
{
    /* The key is valid, the value is not: a call rejected with KK_EINVAL is
     * not an attempt, and the header says it notifies nobody. */
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    recorder *r = new_recorder(NULL);
    REQUIRE(r != NULL);
    REQUIRE(observe(kc, kt_service(), "acct", r) != 0);
    CHECK_STATUS(kk_set(kc, kt_service(), "acct", NULL, 5), KK_EINVAL);
    CHECK_STATUS(kk_set(kc, kt_service(), "acct", "x", KK_MAX_VALUE_SIZE + 1), KK_EINVAL);
    CHECK_EQ(r->calls, 0);
    CHECK_STATUS(kk_set(kc, kt_service(), "acct", "x", 1), KK_OK);
    CHECK_EQ(r->calls, 1);
    kk_close(kc);
    free(r);
}

TEST(observer_runs_after_the_attempt)
{
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    recorder *r = new_recorder(kc); /* the callback calls kk_get */
    REQUIRE(r != NULL);
    REQUIRE(observe(kc, kt_service(), "acct", r) != 0);
    CHECK_STATUS(kk_set(kc, kt_service(), "acct", "new", 3), KK_OK);
    CHECK_EQ(r->calls, 1);
    CHECK_STATUS(r->get_in_callback, KK_OK);
    CHECK_STR_EQ(r->value_in_callback, "new");
    CHECK_STATUS(kk_remove(kc, kt_service(), "acct"), KK_OK);
    CHECK_EQ(r->calls, 2);
    CHECK_STATUS(r->get_in_callback, KK_ENOTFOUND);
    kk_close(kc);
    free(r);
}

TEST(observers_of_other_keys_are_not_called)
{
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    const char *svc = kt_service();
    char other[256];
    strcpy(other, svc);
    strcat(other, ".other");
    recorder *mine = new_recorder(NULL), *other_account = new_recorder(NULL),
             *other_service = new_recorder(NULL);
    REQUIRE(mine != NULL && other_account != NULL && other_service != NULL);
    REQUIRE(observe(kc, svc, "a", mine) != 0);
    REQUIRE(observe(kc, svc, "b", other_account) != 0);
    REQUIRE(observe(kc, other, "a", other_service) != 0);
    CHECK_STATUS(kk_set(kc, svc, "a", "v", 1), KK_OK);
    CHECK_STATUS(kk_remove(kc, svc, "a"), KK_OK);
    CHECK_EQ(mine->calls, 2);
    CHECK_EQ(other_account->calls, 0);
    CHECK_EQ(other_service->calls, 0);
    kk_close(kc);
    CHECK_EQ(mine->destroyed + other_account->destroyed + other_service->destroyed, 3);
    free(mine);
    free(other_account);
    free(other_service);
}

TEST(every_observer_of_a_key_is_called)
{
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    recorder *a = new_recorder(NULL), *b = new_recorder(NULL);
    REQUIRE(a != NULL && b != NULL);
    uint64_t ta = observe(kc, kt_service(), "acct", a);
    uint64_t tb = observe(kc, kt_service(), "acct", b);
    REQUIRE(ta != 0 && tb != 0);
    CHECK(ta != tb);
    CHECK_STATUS(kk_set(kc, kt_service(), "acct", "v", 1), KK_OK);
    CHECK_EQ(a->calls, 1);
    CHECK_EQ(b->calls, 1);
    CHECK_STATUS(kk_unobserve(kc, ta), KK_OK);
    CHECK_STATUS(kk_set(kc, kt_service(), "acct", "w", 1), KK_OK);
    CHECK_EQ(a->calls, 1);
    CHECK_EQ(b->calls, 2);
    kk_close(kc);
    free(a);
    free(b);
}

TEST(callback_may_get_and_unobserve_itself)
{
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    recorder *r = new_recorder(kc);
    REQUIRE(r != NULL);
    r->unobserve_in_callback = 1;
    r->unobserve_status = 1;
    uint64_t token = observe(kc, kt_service(), "acct", r);
    REQUIRE(token != 0);
    CHECK_STATUS(kk_set(kc, kt_service(), "acct", "v", 1), KK_OK); /* no deadlock */
    CHECK_EQ(r->calls, 1);
    CHECK_STATUS(r->unobserve_status, KK_OK);
    CHECK_STATUS(r->get_in_callback, KK_OK);
    CHECK_STR_EQ(r->value_in_callback, "v");
    CHECK_EQ(r->destroyed, 1);
    CHECK_STATUS(kk_set(kc, kt_service(), "acct", "w", 1), KK_OK);
    CHECK_EQ(r->calls, 1); /* removed */
    CHECK_STATUS(kk_unobserve(kc, token), KK_EINVAL);
    kk_close(kc);
    CHECK_EQ(r->destroyed, 1);
    free(r);
}

TEST(a_callback_that_unobserves_another_stops_it_at_once)
{
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    recorder *first = new_recorder(kc), *second = new_recorder(NULL);
    REQUIRE(first != NULL && second != NULL);
    first->unobserve_status = 1;
    REQUIRE(observe(kc, kt_service(), "acct", first) != 0);
    first->unobserve_other = observe(kc, kt_service(), "acct", second);
    REQUIRE(first->unobserve_other != 0);
    CHECK_STATUS(kk_set(kc, kt_service(), "acct", "v", 1), KK_OK);
    CHECK_EQ(first->calls, 1);
    CHECK_STATUS(first->unobserve_status, KK_OK);
    /* Removed by the first during the same notification: never started. */
    CHECK_EQ(second->calls, 0);
    CHECK_EQ(second->destroyed, 1);
    first->unobserve_other = 0;
    kk_close(kc);
    CHECK_EQ(first->destroyed, 1);
    free(first);
    free(second);
}

TEST(callback_may_set_another_observed_key)
{
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    recorder *first = new_recorder(kc), *second = new_recorder(NULL);
    REQUIRE(first != NULL && second != NULL);
    first->set_other_account = "second";
    first->set_other_status = 1;
    REQUIRE(observe(kc, kt_service(), "first", first) != 0);
    REQUIRE(observe(kc, kt_service(), "second", second) != 0);
    CHECK_STATUS(kk_set(kc, kt_service(), "first", "v", 1), KK_OK);
    CHECK_EQ(first->calls, 1);
    CHECK_STATUS(first->set_other_status, KK_OK);
    CHECK_EQ(second->calls, 1);
    CHECK_VALUE(kc, kt_service(), "second", "o", 1);
    kk_close(kc);
    free(first);
    free(second);
}

TEST(callback_may_close_the_handle)
{
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    recorder *r = new_recorder(kc);
    REQUIRE(r != NULL);
    r->close_in_callback = 1;
    REQUIRE(observe(kc, kt_service(), "acct", r) != 0);
    CHECK_STATUS(kk_set(kc, kt_service(), "acct", "v", 1), KK_OK);
    /* The handle is released once kk_set returns; its observer with it. */
    CHECK_EQ(r->calls, 1);
    CHECK_EQ(r->destroyed, 1);
    free(r);
}

TEST(unobserve_calls_destroy_exactly_once)
{
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    recorder *r = new_recorder(NULL);
    REQUIRE(r != NULL);
    uint64_t token = observe(kc, kt_service(), "acct", r);
    REQUIRE(token != 0);
    CHECK_EQ(r->destroyed, 0);
    CHECK_STATUS(kk_unobserve(kc, token), KK_OK);
    CHECK_EQ(r->destroyed, 1);
    CHECK_STATUS(kk_unobserve(kc, token), KK_EINVAL);
    CHECK_STATUS(kk_set(kc, kt_service(), "acct", "v", 1), KK_OK);
    CHECK_EQ(r->calls, 0);
    kk_close(kc);
    CHECK_EQ(r->destroyed, 1);
    free(r);
}

TEST(close_calls_destroy_once_per_registered_observer)
{
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    recorder *r[3];
    uint64_t tokens[3];
    for (int i = 0; i < 3; i++) {
        r[i] = new_recorder(NULL);
        REQUIRE(r[i] != NULL);
        tokens[i] = observe(kc, kt_service(), i == 2 ? "other" : "acct", r[i]);
        REQUIRE(tokens[i] != 0);
    }
    CHECK_STATUS(kk_unobserve(kc, tokens[0]), KK_OK);
    kk_close(kc);
    for (int i = 0; i < 3; i++) {
        CHECK_EQ(r[i]->destroyed, 1);
        free(r[i]);
    }
}

TEST(destroy_may_be_null)
{
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    recorder *r = new_recorder(NULL);
    REQUIRE(r != NULL);
    uint64_t kept = 0, removed = 0;
    CHECK_STATUS(kk_observe(kc, kt_service(), "acct", record, r, NULL, &kept), KK_OK);
    CHECK_STATUS(kk_observe(kc, kt_service(), "acct", record, r, NULL, &removed), KK_OK);
    CHECK_STATUS(kk_set(kc, kt_service(), "acct", "v", 1), KK_OK);
    CHECK_EQ(r->calls, 2);
    CHECK_STATUS(kk_unobserve(kc, removed), KK_OK);
    kk_close(kc); /* `kept` is still registered */
    CHECK_EQ(r->destroyed, 0);
    free(r);
}

TEST(unknown_tokens_are_rejected)
{
    kk_keychain *kc = kt_open(), *other = kt_open();
    REQUIRE(kc != NULL && other != NULL);
    CHECK_STATUS(kk_unobserve(kc, 0), KK_EINVAL);
    CHECK_STATUS(kk_unobserve(kc, 1), KK_EINVAL);
    CHECK_STATUS(kk_unobserve(kc, UINT64_MAX), KK_EINVAL);
    recorder *r = new_recorder(NULL);
    REQUIRE(r != NULL);
    uint64_t token = observe(kc, kt_service(), "acct", r);
    REQUIRE(token != 0);
    /* A token of one handle is unknown to another (which has none). */
    CHECK_STATUS(kk_unobserve(other, token), KK_EINVAL);
    CHECK_EQ(r->destroyed, 0);
    CHECK_STATUS(kk_unobserve(kc, token), KK_OK);
    CHECK_STATUS(kk_unobserve(kc, token), KK_EINVAL);
    CHECK_EQ(r->destroyed, 1);
    kk_close(kc);
    kk_close(other);
    free(r);
}

TEST(tokens_are_nonzero_and_distinct)
{
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    recorder *r = new_recorder(NULL);
    REQUIRE(r != NULL);
    uint64_t tokens[16];
    for (int i = 0; i < 16; i++) {
        tokens[i] = 0;
        /* Same key, same callback and userdata: still distinct observers. */
        CHECK_STATUS(kk_observe(kc, kt_service(), "acct", record, r, destroy_recorder, &tokens[i]), KK_OK);
        CHECK(tokens[i] != 0);
        for (int j = 0; j < i; j++) CHECK(tokens[i] != tokens[j]);
    }
    CHECK_STATUS(kk_set(kc, kt_service(), "acct", "v", 1), KK_OK);
    CHECK_EQ(r->calls, 16);
    kk_close(kc);
    CHECK_EQ(r->destroyed, 16);
    free(r);
}

TEST(null_service_observes_the_default_service)
{
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    recorder *r = new_recorder(NULL);
    REQUIRE(r != NULL);
    REQUIRE(observe(kc, NULL, "kk-c-test.default-observed", r) != 0);
    CHECK_STATUS(kk_set(kc, kt_program_name(), "kk-c-test.default-observed", "v", 1), KK_OK);
    CHECK_EQ(r->calls, 1);
    CHECK_STR_EQ(r->service, kt_program_name());
    CHECK_STATUS(kk_remove(kc, NULL, "kk-c-test.default-observed"), KK_OK);
    CHECK_EQ(r->calls, 2);
    kk_close(kc);
    free(r);
}
