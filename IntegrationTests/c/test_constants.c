/* SPDX-License-Identifier: MIT */
/*
 * test_constants.c — the stable numbers and texts of the ABI: status and
 * event values, status strings, versions, the value size limit.
 */
#include "kk_test.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

static const kk_status all_statuses[] = {
    KK_OK, KK_ENOTFOUND, KK_EDUPLICATE, KK_ELOCKED, KK_EDENIED,
    KK_EUNAVAILABLE, KK_ECANCELED, KK_EINVAL, KK_ENOMEM, KK_EUNKNOWN,
    KK_EWRONGKEY, KK_ENOKEY, KK_ECORRUPT,
};
#define STATUS_COUNT (sizeof all_statuses / sizeof all_statuses[0])

TEST(status_values_are_pinned)
{
    /* Never renumbered, only appended: a change here breaks every binary. */
    CHECK_EQ(KK_OK, 0);
    CHECK_EQ(KK_ENOTFOUND, -1);
    CHECK_EQ(KK_EDUPLICATE, -2);
    CHECK_EQ(KK_ELOCKED, -3);
    CHECK_EQ(KK_EDENIED, -4);
    CHECK_EQ(KK_EUNAVAILABLE, -5);
    CHECK_EQ(KK_ECANCELED, -6);
    CHECK_EQ(KK_EINVAL, -7);
    CHECK_EQ(KK_ENOMEM, -8);
    CHECK_EQ(KK_EUNKNOWN, -9);
    CHECK_EQ(KK_EWRONGKEY, -10);
    CHECK_EQ(KK_ENOKEY, -11);
    CHECK_EQ(KK_ECORRUPT, -12);
    CHECK_EQ(sizeof(kk_status), sizeof(int));
}

TEST(event_values_are_pinned)
{
    CHECK_EQ(KK_EVENT_SET, 1);
    CHECK_EQ(KK_EVENT_REMOVE, 2);
    CHECK_EQ(KK_EVENT_CHANGED, 3);
    CHECK_EQ(KK_EVENT_DELETED, 4);
    CHECK_EQ(sizeof(kk_event), sizeof(int));
}

TEST(status_strings_are_distinct_static_text)
{
    for (size_t i = 0; i < STATUS_COUNT; i++) {
        const char *s = kk_status_string(all_statuses[i]);
        if (!CHECK(s != NULL)) continue;
        CHECK(s[0] != '\0');
        CHECK(strcmp(s, "unknown status") != 0);
        /* Static text: the same text on every call. */
        CHECK_STR_EQ(kk_status_string(all_statuses[i]), s);
        for (size_t j = 0; j < i; j++) {
            const char *t = kk_status_string(all_statuses[j]);
            CHECK(t == NULL || strcmp(s, t) != 0);
        }
    }
}

TEST(status_string_of_unknown_values)
{
    const int unknown[] = {1, 2, -13, 42, -1000, INT_MAX, INT_MIN};
    for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++)
        CHECK_STR_EQ(kk_status_string((kk_status)unknown[i]), "unknown status");
}

TEST(version_number_matches_header)
{
    CHECK_EQ(kk_version_number(), KK_VERSION_NUMBER);
    CHECK_EQ(KK_VERSION_NUMBER,
             KK_VERSION_MAJOR * 10000 + KK_VERSION_MINOR * 100 + KK_VERSION_PATCH);
}

TEST(version_string_matches_header)
{
    char expected[64];
    snprintf(expected, sizeof expected, "%d.%d.%d", KK_VERSION_MAJOR, KK_VERSION_MINOR,
             KK_VERSION_PATCH);
    CHECK_STR_EQ(kk_version_string(), expected);
}

TEST(max_value_size_is_16_mib)
{
    CHECK_EQ(KK_MAX_VALUE_SIZE, 16 * 1024 * 1024);
}
