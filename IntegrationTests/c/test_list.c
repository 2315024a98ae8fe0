/* SPDX-License-Identifier: MIT */
/*
 * test_list.c — kk_list and kk_list_free: the accounts of a service, sorted
 * by bytes, without values; the empty account; argument errors; canonically
 * equal names kept apart.
 */
#include "kt_keychain.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

TEST(list_of_an_empty_service_is_an_empty_array)
{
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    char **accounts = NULL;
    size_t count = 99;
    CHECK_STATUS(kk_list(kc, kt_service(), &accounts, &count), KK_OK);
    REQUIRE(accounts != NULL);
    CHECK(accounts[0] == NULL);
    CHECK_EQ(count, 0);
    kk_list_free(accounts);
    kk_close(kc);
}

TEST(list_names_the_accounts_of_the_service_sorted)
{
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    CHECK_STATUS(kk_set(kc, kt_service(), "carol", "c", 1), KK_OK);
    CHECK_STATUS(kk_set(kc, kt_service(), "alice", "a", 1), KK_OK);
    CHECK_STATUS(kk_set(kc, kt_service(), "bob", "b", 1), KK_OK);
    CHECK_STATUS(kk_set(kc, kt_service(), "", "e", 1), KK_OK); /* the empty account, listed as "" */
    CHECK_STATUS(kk_set(kc, "kk-c-test.elsewhere", "dave", "d", 1), KK_OK);
    char **accounts = NULL;
    size_t count = 0;
    CHECK_STATUS(kk_list(kc, kt_service(), &accounts, &count), KK_OK);
    REQUIRE(accounts != NULL);
    CHECK_EQ(count, 4);
    REQUIRE(count == 4);
    CHECK_STR_EQ(accounts[0], "");
    CHECK_STR_EQ(accounts[1], "alice");
    CHECK_STR_EQ(accounts[2], "bob");
    CHECK_STR_EQ(accounts[3], "carol");
    CHECK(accounts[4] == NULL);
    kk_list_free(accounts);

    CHECK_STATUS(kk_remove(kc, kt_service(), "bob"), KK_OK);
    CHECK_STATUS(kk_list(kc, kt_service(), &accounts, NULL), KK_OK);
    REQUIRE(accounts != NULL);
    CHECK_STR_EQ(accounts[0], "");
    CHECK_STR_EQ(accounts[1], "alice");
    CHECK_STR_EQ(accounts[2], "carol");
    CHECK(accounts[3] == NULL);
    kk_list_free(accounts);
    kk_remove(kc, "kk-c-test.elsewhere", "dave");
    kk_close(kc);
}

/* Sorted by their UTF-8 bytes, whatever the script or case; each name its
 * own key (the composed and decomposed "café" too). */
TEST(list_sorts_non_ascii_names_by_their_utf8_bytes)
{
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    static const char *const given[] = {
        "zeta", "Alpha", "alpha", "a b", "\xC3\xBF", "caf\xC3\xA9", "cafe\xCC\x81",
        "\xE9\x8D\xB5", "\xF0\x9F\x94\x91", "e",
    };
    static const char *const sorted[] = {
        "Alpha", "a b", "alpha", "cafe\xCC\x81", "caf\xC3\xA9", "e", "zeta",
        "\xC3\xBF", "\xE9\x8D\xB5", "\xF0\x9F\x94\x91",
    };
    const size_t n = sizeof given / sizeof given[0];
    for (size_t i = 0; i < n; i++)
        CHECK_STATUS(kk_set(kc, kt_service(), given[i], given[i], strlen(given[i])), KK_OK);
    char **accounts = NULL;
    size_t count = 0;
    CHECK_STATUS(kk_list(kc, kt_service(), &accounts, &count), KK_OK);
    REQUIRE(accounts != NULL);
    if (CHECK_EQ(count, n))
        for (size_t i = 0; i < n; i++) CHECK_STR_EQ(accounts[i], sorted[i]);
    kk_list_free(accounts);
    for (size_t i = 0; i < n; i++) {
        CHECK_VALUE(kc, kt_service(), given[i], given[i], strlen(given[i]));
        kk_remove(kc, kt_service(), given[i]);
    }
    kk_close(kc);
}

TEST(list_keeps_canonically_equal_names_apart)
{
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    CHECK_STATUS(kk_set(kc, kt_service(), "caf\xC3\xA9", "1", 1), KK_OK);
    CHECK_STATUS(kk_set(kc, kt_service(), "cafe\xCC\x81", "2", 1), KK_OK);
    char **accounts = NULL;
    size_t count = 0;
    CHECK_STATUS(kk_list(kc, kt_service(), &accounts, &count), KK_OK);
    REQUIRE(accounts != NULL);
    CHECK_EQ(count, 2);
    kk_list_free(accounts);

    /* Services too: two canonically equal ones are two services. */
    char composed[300], decomposed[300];
    snprintf(composed, sizeof composed, "%s.caf\xC3\xA9", kt_service());
    snprintf(decomposed, sizeof decomposed, "%s.cafe\xCC\x81", kt_service());
    CHECK_STATUS(kk_set(kc, composed, "shared", "1", 1), KK_OK);
    CHECK_STATUS(kk_set(kc, composed, "only-composed", "2", 1), KK_OK);
    CHECK_STATUS(kk_set(kc, decomposed, "shared", "3", 1), KK_OK);
    const char *services[] = {composed, decomposed};
    const char *own[] = {"only-composed", "shared"};
    for (int i = 0; i < 2; i++) {
        accounts = NULL;
        if (CHECK_STATUS(kk_list(kc, services[i], &accounts, &count), KK_OK) && CHECK_EQ(count, i == 0 ? 2 : 1))
            CHECK_STR_EQ(accounts[0], own[i]);
        kk_list_free(accounts);
    }
    CHECK_VALUE(kc, decomposed, "shared", "3", 1);
    kk_remove(kc, composed, "shared");
    kk_remove(kc, composed, "only-composed");
    kk_remove(kc, decomposed, "shared");
    kk_close(kc);
}

TEST(list_rejects_bad_arguments)
{
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    char **accounts = (char **)KT_SENTINEL;
    CHECK_STATUS(kk_list(NULL, kt_service(), &accounts, NULL), KK_EINVAL);
    CHECK(accounts == NULL);
    CHECK_STATUS(kk_list(kc, kt_service(), NULL, NULL), KK_EINVAL);
    CHECK_STATUS(kk_list(kc, "", &accounts, NULL), KK_EINVAL);
    CHECK_STATUS(kk_list(kc, "bad\xFF", &accounts, NULL), KK_EINVAL);
    CHECK(accounts == NULL);
    kk_list_free(NULL);
    kk_close(kc);
}

TEST(list_of_the_default_service)
{
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    CHECK_STATUS(kk_set(kc, NULL, "kk-c-test-default-list", "v", 1), KK_OK);
    char **accounts = NULL;
    CHECK_STATUS(kk_list(kc, NULL, &accounts, NULL), KK_OK);
    REQUIRE(accounts != NULL);
    int found = 0;
    for (char **a = accounts; *a != NULL; a++) found += strcmp(*a, "kk-c-test-default-list") == 0;
    CHECK_EQ(found, 1);
    kk_list_free(accounts);
    kk_remove(kc, NULL, "kk-c-test-default-list");
    kk_close(kc);
}
