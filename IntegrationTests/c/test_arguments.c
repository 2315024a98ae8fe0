/* SPDX-License-Identifier: MIT */
/*
 * test_arguments.c — bad arguments: every NULL pointer, an empty service,
 * invalid UTF-8 strings, bad value sizes give KK_EINVAL without a crash and without
 * touching the keychain; the NULL-accepting functions accept NULL.
 */
#include "kt_keychain.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static int destroy_calls;
static void count_destroy(void *userdata) { (void)userdata; destroy_calls++; }
static void ignore_event(kk_event e, const char *s, const char *a, kk_status st, void *u)
{
    (void)e; (void)s; (void)a; (void)st; (void)u;
}

/* Strings that are not valid UTF-8: a lone continuation byte, a truncated
 * sequence, a bad continuation, an overlong "/", a UTF-16 surrogate, a code
 * point above U+10FFFF, and 0xFF. */
static const char *const bad_utf8[] = {
    "\x80", "abc\xc3", "\xc3\x28", "\xc0\xaf", "\xed\xa0\x80", "\xf4\x90\x80\x80", ("a\xff" "b"),
};
#define BAD_UTF8_COUNT (sizeof bad_utf8 / sizeof bad_utf8[0])

/** A handle pointer no kk_open_* returns, to see that *out is left alone. */
#define KT_SENTINEL_HANDLE ((kk_keychain *)KT_SENTINEL)

TEST(open_rejects_null_out)
{
    CHECK_STATUS(kk_open_memory(NULL), KK_EINVAL);
    CHECK_STATUS(kk_open_secret_service(NULL), KK_EINVAL);
}

TEST(open_memory_shared_rejects_bad_handles)
{
    kk_keychain *memory = NULL, *secret_service = NULL, *out = KT_SENTINEL_HANDLE;
    CHECK_STATUS(kk_open_memory_shared(NULL, &out), KK_EINVAL);
    CHECK(out == KT_SENTINEL_HANDLE);
    REQUIRE(kk_open_memory(&memory) == KK_OK);
    CHECK_STATUS(kk_open_memory_shared(memory, NULL), KK_EINVAL);
    REQUIRE(kk_open_secret_service(&secret_service) == KK_OK);  // connects lazily: no bus needed
    CHECK_STATUS(kk_open_memory_shared(secret_service, &out), KK_EINVAL);
    CHECK(out == KT_SENTINEL_HANDLE);
    kk_close(secret_service);
    CHECK_STATUS(kk_open_memory_shared(memory, &out), KK_OK);
    kk_close(memory);  // the items live on with the second handle
    CHECK_STATUS(kk_set(out, "svc", "acct", "v", 1), KK_OK);
    kk_close(out);
}

TEST(close_and_secret_free_accept_null)
{
    kk_close(NULL);
    kk_secret_free(NULL);
    /* Reaching this line without a crash is the test; the library must
     * still answer afterwards. */
    CHECK_EQ(kk_version_number(), KK_VERSION_NUMBER);
}

TEST(get_rejects_null_pointers)
{
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    const char *svc = kt_service();
    /* The item exists, so only the bad argument can explain a failure. */
    CHECK_STATUS(kk_set(kc, svc, "acct", "v", 1), KK_OK);

    char *value = KT_SENTINEL;
    size_t len = 77;
    CHECK_STATUS(kk_get(NULL, svc, "acct", &value, &len), KK_EINVAL);
    CHECK(value == NULL);
    CHECK_EQ(len, 77);
    value = KT_SENTINEL;
    CHECK_STATUS(kk_get(kc, svc, NULL, &value, &len), KK_EINVAL);
    CHECK(value == NULL);
    CHECK_EQ(len, 77);
    CHECK_STATUS(kk_get(kc, svc, "acct", NULL, &len), KK_EINVAL);
    CHECK_EQ(len, 77);
    CHECK_STATUS(kk_get(kc, svc, "acct", NULL, NULL), KK_EINVAL);
    kk_close(kc);
}

TEST(set_rejects_null_pointers)
{
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    const char *svc = kt_service();
    CHECK_STATUS(kk_set(kc, svc, "acct", "old", 3), KK_OK);
    CHECK_STATUS(kk_set(NULL, svc, "acct", "new", 3), KK_EINVAL);
    CHECK_STATUS(kk_set(kc, svc, NULL, "new", 3), KK_EINVAL);
    CHECK_STATUS(kk_set(kc, svc, "acct", NULL, 3), KK_EINVAL);
    CHECK_STATUS(kk_set(kc, svc, "acct", NULL, 1), KK_EINVAL);
    CHECK_VALUE(kc, svc, "acct", "old", 3);
    kk_close(kc);
}

TEST_ON(KT_ANY_SIZE, set_accepts_null_value_with_length_zero)
{
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    CHECK_STATUS(kk_set(kc, kt_service(), "acct", "old", 3), KK_OK);
    CHECK_STATUS(kk_set(kc, kt_service(), "acct", NULL, 0), KK_OK);
    CHECK_VALUE(kc, kt_service(), "acct", "", 0);
    kk_close(kc);
}

TEST(remove_rejects_null_pointers)
{
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    const char *svc = kt_service();
    CHECK_STATUS(kk_set(kc, svc, "acct", "v", 1), KK_OK);
    CHECK_STATUS(kk_remove(NULL, svc, "acct"), KK_EINVAL);
    CHECK_STATUS(kk_remove(kc, svc, NULL), KK_EINVAL);
    CHECK_STATUS(kk_exists(NULL, svc, "acct"), KK_EINVAL);
    CHECK_STATUS(kk_exists(kc, svc, NULL), KK_EINVAL);
    CHECK_VALUE(kc, svc, "acct", "v", 1);
    kk_close(kc);
}

TEST(observe_rejects_null_pointers_without_destroy)
{
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    const char *svc = kt_service();
    uint64_t token = 4242;
    destroy_calls = 0;
    CHECK_STATUS(kk_observe(NULL, svc, "a", ignore_event, NULL, count_destroy, &token), KK_EINVAL);
    CHECK_STATUS(kk_observe(kc, svc, NULL, ignore_event, NULL, count_destroy, &token), KK_EINVAL);
    CHECK_STATUS(kk_observe(kc, svc, "a", NULL, NULL, count_destroy, &token), KK_EINVAL);
    CHECK_STATUS(kk_observe(kc, svc, "a", ignore_event, NULL, count_destroy, NULL), KK_EINVAL);
    CHECK_EQ(token, 4242);      /* out-parameters are written only on success */
    CHECK_EQ(destroy_calls, 0); /* "on failure destroy is not called" */
    kk_close(kc);
    CHECK_EQ(destroy_calls, 0); /* nor registered by the failed calls */
}

TEST(unobserve_rejects_null_handle)
{
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    uint64_t token = 0;
    destroy_calls = 0;
    CHECK_STATUS(kk_observe(kc, kt_service(), "a", ignore_event, NULL, count_destroy, &token), KK_OK);
    CHECK_STATUS(kk_unobserve(NULL, token), KK_EINVAL);
    CHECK_EQ(destroy_calls, 0);
    CHECK_STATUS(kk_unobserve(kc, token), KK_OK); /* still registered */
    CHECK_EQ(destroy_calls, 1);
    kk_close(kc);
}

/* Every key-taking function with `service` and `account`; all must be
 * KK_EINVAL. */
static void check_key_rejected(kk_keychain *kc, const char *service, const char *account,
                               const char *file, int line)
{
    char *value = KT_SENTINEL;
    uint64_t token = 0;
    destroy_calls = 0;
    kt_check_status(kk_get(kc, service, account, &value, NULL), KK_EINVAL, file, line, "kk_get");
    kt_check(value == NULL, file, line, "kk_get set *out_value to NULL");
    kt_check_status(kk_set(kc, service, account, "v", 1), KK_EINVAL, file, line, "kk_set");
    kt_check_status(kk_remove(kc, service, account), KK_EINVAL, file, line, "kk_remove");
    kt_check_status(kk_exists(kc, service, account), KK_EINVAL, file, line, "kk_exists");
    kt_check_status(kk_observe(kc, service, account, ignore_event, NULL, count_destroy, &token),
                    KK_EINVAL, file, line, "kk_observe");
    kt_check(destroy_calls == 0, file, line, "a rejected kk_observe calls no destroy");
}
#define CHECK_KEY_REJECTED(kc, service, account) \
    check_key_rejected((kc), (service), (account), __FILE__, __LINE__)

TEST(empty_service_is_rejected)
{
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    CHECK_KEY_REJECTED(kc, "", "acct");
    CHECK_KEY_REJECTED(kc, "", ""); /* the empty account is valid, the service is not */
    kk_close(kc);
}

TEST(invalid_utf8_account_is_rejected)
{
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    for (size_t i = 0; i < BAD_UTF8_COUNT; i++) CHECK_KEY_REJECTED(kc, kt_service(), bad_utf8[i]);
    kk_close(kc);
}

TEST(invalid_utf8_service_is_rejected)
{
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    for (size_t i = 0; i < BAD_UTF8_COUNT; i++) CHECK_KEY_REJECTED(kc, bad_utf8[i], "acct");
    kk_close(kc);
}

TEST(oversized_value_is_rejected)
{
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    const char *svc = kt_service();
    /* A real buffer of that size: the library may read what it is given. */
    char *big = calloc(KK_MAX_VALUE_SIZE + 1, 1);
    REQUIRE(big != NULL);
    CHECK_STATUS(kk_set(kc, svc, "acct", big, KK_MAX_VALUE_SIZE + 1), KK_EINVAL);
    CHECK_ABSENT(kc, svc, "acct");
    CHECK_STATUS(kk_set(kc, svc, "acct", "old", 3), KK_OK);
    CHECK_STATUS(kk_set(kc, svc, "acct", big, KK_MAX_VALUE_SIZE + 1), KK_EINVAL);
    /* Sizes are checked before anything is read: these buffers are short. */
    CHECK_STATUS(kk_set(kc, svc, "acct", "x", SIZE_MAX), KK_EINVAL);
    CHECK_STATUS(kk_set(kc, svc, "acct", "x", SIZE_MAX / 2 + 1), KK_EINVAL);
    CHECK_VALUE(kc, svc, "acct", "old", 3);
    free(big);
    kk_close(kc);
}

TEST_ON(KT_MEMORY, max_size_value_is_accepted)
{
    /* Only the memory backend: a Secret Service may refuse 16 MiB itself. */
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    char *big = malloc(KK_MAX_VALUE_SIZE);
    REQUIRE(big != NULL);
    for (size_t i = 0; i < KK_MAX_VALUE_SIZE; i++) big[i] = (char)(i * 7 + 3);
    CHECK_STATUS(kk_set(kc, kt_service(), "acct", big, KK_MAX_VALUE_SIZE), KK_OK);
    CHECK_VALUE(kc, kt_service(), "acct", big, KK_MAX_VALUE_SIZE);
    free(big);
    kk_close(kc);
}
