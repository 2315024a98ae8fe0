/* SPDX-License-Identifier: MIT */
/*
 * test_error_message.c — kk_error_message(): never NULL, "" on a thread
 * without failures, a description after each failure, per thread.
 */
#define _POSIX_C_SOURCE 200809L

#include "kt_keychain.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

static void *fresh_thread(void *arg)
{
    (void)arg;
    const char *m = kk_error_message();
    CHECK_STR_EQ(m, "");
    /* Successful calls are no failures. */
    kk_keychain *kc = NULL;
    CHECK_STATUS(kk_open_memory(&kc), KK_OK);
    CHECK_STATUS(kk_set(kc, "kk-c-test.fresh", "acct", "v", 1), KK_OK);
    char *value = NULL;
    CHECK_STATUS(kk_get(kc, "kk-c-test.fresh", "acct", &value, NULL), KK_OK);
    kk_secret_free(value);
    kk_close(kc);
    CHECK_STR_EQ(kk_error_message(), "");
    return NULL;
}

TEST(error_message_is_empty_on_a_thread_without_failures)
{
    pthread_t thread;
    REQUIRE(pthread_create(&thread, NULL, fresh_thread, NULL) == 0);
    pthread_join(thread, NULL);
}

TEST(error_message_describes_invalid_arguments)
{
    CHECK_STATUS(kk_get(NULL, "s", "a", NULL, NULL), KK_EINVAL);
    const char *m = kk_error_message();
    REQUIRE(m != NULL);
    CHECK(m[0] != '\0');
}

TEST(error_message_describes_not_found)
{
    /* "On failure, kk_error_message() describes it", absence included. */
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    char *value = NULL;
    CHECK_STATUS(kk_get(kc, kt_service(), "absent", &value, NULL), KK_ENOTFOUND);
    const char *m = kk_error_message();
    REQUIRE(m != NULL);
    CHECK(m[0] != '\0');
    kk_close(kc);
}

static void *failing_thread(void *arg)
{
    kk_keychain *kc = arg;
    char *value = NULL;
    CHECK_STATUS(kk_get(kc, "kk-c-test.other-thread", "absent", &value, NULL), KK_ENOTFOUND);
    CHECK_STATUS(kk_set(kc, "", "acct", "v", 1), KK_EINVAL);
    CHECK(kk_error_message() != NULL);
    return NULL;
}

TEST(error_message_is_per_thread)
{
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    CHECK_STATUS(kk_remove(kc, kt_service(), NULL), KK_EINVAL);
    const char *m = kk_error_message();
    REQUIRE(m != NULL);
    char *mine = strdup(m);
    REQUIRE(mine != NULL);
    pthread_t thread;
    if (CHECK(pthread_create(&thread, NULL, failing_thread, kc) == 0)) pthread_join(thread, NULL);
    /* Another thread's failures leave this thread's message alone. */
    CHECK_STR_EQ(kk_error_message(), mine);
    free(mine);
    kk_close(kc);
}

TEST(error_message_is_never_null)
{
    CHECK(kk_error_message() != NULL);
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    CHECK(kk_error_message() != NULL);
    CHECK_STATUS(kk_set(kc, kt_service(), "acct", "v", 1), KK_OK);
    CHECK(kk_error_message() != NULL);
    CHECK_STATUS(kk_unobserve(kc, 0), KK_EINVAL);
    CHECK(kk_error_message() != NULL);
    kk_close(kc);
    CHECK(kk_error_message() != NULL);
}
