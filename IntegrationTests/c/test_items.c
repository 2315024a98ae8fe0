/* SPDX-License-Identifier: MIT */
/*
 * test_items.c — kk_get, kk_set, kk_remove and kk_secret_free on valid
 * keys: absence, round trips of any bytes, replace, remove, key
 * independence, the default service, the empty account.
 */
#define _DEFAULT_SOURCE /* setenv */

#include "kt_keychain.h"

#include <stdlib.h>
#include <string.h>

TEST(get_absent_is_not_found)
{
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    CHECK_ABSENT(kc, kt_service(), "nobody");
    kk_close(kc);
}

TEST(exists_tells_presence_without_the_value)
{
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    const char *svc = kt_service();
    CHECK_STATUS(kk_exists(kc, svc, "acct"), KK_ENOTFOUND);
    CHECK_STATUS(kk_exists(kc, svc, "acct"), KK_ENOTFOUND); /* a remembered absence, confirmed */
    static const unsigned char binary[] = {0xff, 0xfe, 0x00};
    CHECK_STATUS(kk_set(kc, svc, "acct", binary, sizeof binary), KK_OK);
    CHECK_STATUS(kk_exists(kc, svc, "acct"), KK_OK);
    CHECK_STATUS(kk_exists(kc, svc, "other"), KK_ENOTFOUND);
    CHECK_STATUS(kk_exists(kc, NULL, "acct"), KK_ENOTFOUND); /* the default service is another */
    CHECK_STATUS(kk_remove(kc, svc, "acct"), KK_OK);
    CHECK_STATUS(kk_exists(kc, svc, "acct"), KK_ENOTFOUND);
    kk_close(kc);
}

TEST(set_then_get_round_trips)
{
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    CHECK_STATUS(kk_set(kc, kt_service(), "acct", "s3cret", 6), KK_OK);
    CHECK_VALUE(kc, kt_service(), "acct", "s3cret", 6);
    kk_close(kc);
}

TEST(value_with_embedded_nul_bytes_round_trips)
{
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    static const char value[] = {'a', '\0', 'b', '\0', '\0', 'c'};
    CHECK_STATUS(kk_set(kc, kt_service(), "acct", value, sizeof value), KK_OK);
    CHECK_VALUE(kc, kt_service(), "acct", value, sizeof value);
    kk_close(kc);
}

TEST(non_ascii_utf8_round_trips)
{
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    const char *value = "p\xc3\xa4sswo\xcc\x88rd \xf0\x9f\x94\x91 \xe5\xaf\x86\xe7\xa0\x81";
    const char *service = "s\xc3\xa9rvice-\xe2\x82\xac"; /* "sérvice-€" */
    const char *account = "\xe8\xb4\xa6\xe6\x88\xb7";   /* "账户" */
    CHECK_STATUS(kk_set(kc, service, account, value, strlen(value)), KK_OK);
    CHECK_VALUE(kc, service, account, value, strlen(value));
    CHECK_STATUS(kk_remove(kc, service, account), KK_OK);
    CHECK_ABSENT(kc, service, account);
    kk_close(kc);
}

TEST(binary_value_round_trips)
{
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    unsigned char value[256];
    for (int i = 0; i < 256; i++) value[i] = (unsigned char)(255 - i); /* not UTF-8 */
    CHECK_STATUS(kk_set(kc, kt_service(), "acct", value, sizeof value), KK_OK);
    CHECK_VALUE(kc, kt_service(), "acct", value, sizeof value);
    kk_close(kc);
}

TEST_ON(KT_ANY_SIZE, empty_value_round_trips_as_empty_string)
{
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    CHECK_STATUS(kk_set(kc, kt_service(), "acct", "", 0), KK_OK);
    /* CHECK_VALUE also checks that the value is non-NULL and value[0] == 0. */
    CHECK_VALUE(kc, kt_service(), "acct", "", 0);
    kk_close(kc);
}

TEST_ON(KT_ANY_SIZE, one_mib_value_round_trips)
{
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    size_t len = 1024 * 1024;
    char *value = malloc(len);
    REQUIRE(value != NULL);
    for (size_t i = 0; i < len; i++) value[i] = (char)('A' + (i * 31 + i / 997) % 26);
    CHECK_STATUS(kk_set(kc, kt_service(), "acct", value, len), KK_OK);
    CHECK_VALUE(kc, kt_service(), "acct", value, len);
    free(value);
    kk_close(kc);
}

TEST(out_len_may_be_null)
{
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    CHECK_STATUS(kk_set(kc, kt_service(), "acct", "token", 5), KK_OK);
    char *value = NULL;
    CHECK_STATUS(kk_get(kc, kt_service(), "acct", &value, NULL), KK_OK);
    REQUIRE(value != NULL);
    CHECK_STR_EQ(value, "token"); /* NUL-terminated, so usable as a string */
    kk_secret_free(value);
    kk_close(kc);
}

TEST(each_get_returns_a_new_copy)
{
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    CHECK_STATUS(kk_set(kc, kt_service(), "acct", "abc", 3), KK_OK);
    char *first = NULL, *second = NULL;
    CHECK_STATUS(kk_get(kc, kt_service(), "acct", &first, NULL), KK_OK);
    CHECK_STATUS(kk_get(kc, kt_service(), "acct", &second, NULL), KK_OK);
    REQUIRE(first != NULL && second != NULL);
    CHECK(first != second);
    first[0] = 'X'; /* the caller owns its copy */
    CHECK_STR_EQ(second, "abc");
    CHECK_VALUE(kc, kt_service(), "acct", "abc", 3);
    kk_secret_free(first);
    kk_secret_free(second);
    kk_close(kc);
}

TEST(set_replaces_the_value)
{
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    CHECK_STATUS(kk_set(kc, kt_service(), "acct", "first", 5), KK_OK);
    CHECK_STATUS(kk_set(kc, kt_service(), "acct", "second, longer", 14), KK_OK);
    CHECK_VALUE(kc, kt_service(), "acct", "second, longer", 14);
    CHECK_STATUS(kk_set(kc, kt_service(), "acct", "x", 1), KK_OK);
    CHECK_VALUE(kc, kt_service(), "acct", "x", 1);
    kk_close(kc);
}

TEST(remove_deletes_the_item)
{
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    CHECK_STATUS(kk_set(kc, kt_service(), "acct", "v", 1), KK_OK);
    CHECK_STATUS(kk_remove(kc, kt_service(), "acct"), KK_OK);
    CHECK_ABSENT(kc, kt_service(), "acct");
    /* and the key can be used again */
    CHECK_STATUS(kk_set(kc, kt_service(), "acct", "w", 1), KK_OK);
    CHECK_VALUE(kc, kt_service(), "acct", "w", 1);
    kk_close(kc);
}

TEST(remove_absent_is_ok)
{
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    CHECK_STATUS(kk_remove(kc, kt_service(), "never-stored"), KK_OK);
    CHECK_STATUS(kk_set(kc, kt_service(), "acct", "v", 1), KK_OK);
    CHECK_STATUS(kk_remove(kc, kt_service(), "acct"), KK_OK);
    CHECK_STATUS(kk_remove(kc, kt_service(), "acct"), KK_OK);
    CHECK_ABSENT(kc, kt_service(), "acct");
    kk_close(kc);
}

TEST(keys_are_independent)
{
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    const char *svc = kt_service();
    char other[256];
    strcpy(other, svc);
    strcat(other, ".other");
    CHECK_STATUS(kk_set(kc, svc, "a", "1", 1), KK_OK);
    CHECK_STATUS(kk_set(kc, svc, "b", "2", 1), KK_OK);
    CHECK_STATUS(kk_set(kc, other, "a", "3", 1), KK_OK);
    CHECK_VALUE(kc, svc, "a", "1", 1);
    CHECK_VALUE(kc, svc, "b", "2", 1);
    CHECK_VALUE(kc, other, "a", "3", 1);
    CHECK_STATUS(kk_remove(kc, svc, "a"), KK_OK);
    CHECK_ABSENT(kc, svc, "a");
    CHECK_VALUE(kc, svc, "b", "2", 1);
    CHECK_VALUE(kc, other, "a", "3", 1);
    /* A prefix of a key is another key. */
    CHECK_ABSENT(kc, svc, "b ");
    kk_close(kc);
}

TEST(null_service_is_the_program_name)
{
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    CHECK_STATUS(kk_set(kc, NULL, "kk-c-test.default", "dflt", 4), KK_OK);
    CHECK_VALUE(kc, NULL, "kk-c-test.default", "dflt", 4);
    /* The default service is argv[0]'s last path component. */
    CHECK_VALUE(kc, kt_program_name(), "kk-c-test.default", "dflt", 4);
    CHECK_STATUS(kk_remove(kc, NULL, "kk-c-test.default"), KK_OK);
    CHECK_ABSENT(kc, kt_program_name(), "kk-c-test.default");
    kk_close(kc);
}

/* Still the program's name after setenv() moved environ off the stack,
 * where argv lies: the library reads /proc/self/cmdline, as it must when a
 * host (Python's ctypes) changed its environment before the first call. */
TEST(null_service_is_the_program_name_after_setenv)
{
    REQUIRE(setenv("KK_C_TEST_MOVES_ENVIRON", "1", 1) == 0);
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    CHECK_STATUS(kk_set(kc, NULL, "kk-c-test.after-setenv", "x", 1), KK_OK);
    CHECK_VALUE(kc, kt_program_name(), "kk-c-test.after-setenv", "x", 1);
    CHECK_STATUS(kk_remove(kc, NULL, "kk-c-test.after-setenv"), KK_OK);
    kk_close(kc);
}

/* "" is an ordinary account (keyring, secret-tool and libsecret store
 * username=""), distinct from every other, in a named or the default service. */
TEST(empty_account_is_an_ordinary_key)
{
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    const char *services[] = {kt_service(), NULL};
    for (size_t i = 0; i < 2; i++) {
        const char *svc = services[i];
        CHECK_ABSENT(kc, svc, "");
        CHECK_STATUS(kk_set(kc, svc, "", "nobody", 6), KK_OK);
        CHECK_STATUS(kk_exists(kc, svc, ""), KK_OK);
        CHECK_VALUE(kc, svc, "", "nobody", 6);
        CHECK_ABSENT(kc, svc, "a");
        CHECK_STATUS(kk_remove(kc, svc, ""), KK_OK);
        CHECK_ABSENT(kc, svc, "");
    }
    kk_close(kc);
}

TEST_ON(KT_MEMORY, memory_handles_do_not_share_items)
{
    kk_keychain *a = kt_open(), *b = kt_open();
    REQUIRE(a != NULL && b != NULL);
    CHECK_STATUS(kk_set(a, kt_service(), "acct", "v", 1), KK_OK);
    CHECK_ABSENT(b, kt_service(), "acct");
    kk_close(a);
    kk_close(b);
}
