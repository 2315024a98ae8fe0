/* SPDX-License-Identifier: MIT */
/*
 * test_secret_service.c — what only the Secret Service backend has: a
 * locked collection, items shared with other clients (secret-tool, other
 * handles), duplicates other tools left behind, and no session bus.
 */
#define _POSIX_C_SOURCE 200809L

#include "kt_keychain.h"
#include "kt_secret_service.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/** The attempts through the handle an observer heard. */
typedef struct statuses {
    int calls;
    kk_event event;
    kk_status status;
} statuses;

static void remember(kk_event event, const char *service, const char *account, kk_status status,
                     void *userdata)
{
    (void)service;
    (void)account;
    statuses *s = userdata;
    /* Attempts only: a server may announce changes (KWallet: one per item
     * when a wallet is unlocked), heard as KK_EVENT_CHANGED elsewhere. */
    if (event == KK_EVENT_CHANGED || event == KK_EVENT_DELETED) return;
    s->calls++;
    s->event = event;
    s->status = status;
}

/** Whether the server under test hides every item of a locked collection
 *  from searches (KeePassXC, for a locked database), rather than listing
 *  them as locked (gnome-keyring, KWallet). */
TEST_ON(KT_SECRET_SERVICE, locked_collection_is_elocked_not_absent)
{
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    const char *svc = kt_service();
    CHECK_STATUS(kk_set(kc, svc, "acct", "before", 6), KK_OK);
    statuses seen = {0};
    uint64_t token = 0;
    CHECK_STATUS(kk_observe(kc, svc, "acct", remember, &seen, NULL, &token), KK_OK);
    seen.calls = 0;

    if (kt_lock_checked()) {
        char *value = KT_SENTINEL;
        CHECK_STATUS(kk_get(kc, svc, "acct", &value, NULL), KK_ELOCKED);
        CHECK(value == NULL);
        const char *m = kk_error_message();
        CHECK(m != NULL && m[0] != '\0');
        /* Present, though unreadable; where the server hides a locked
         * collection's items, presence cannot be told either. */
        CHECK_STATUS(kk_exists(kc, svc, "acct"), kt_server_hides_locked_items() ? KK_ELOCKED : KK_OK);

        CHECK_STATUS(kk_set(kc, svc, "acct", "SUPERSECRET-while-locked", 24), KK_ELOCKED);
        CHECK_EQ(seen.calls, 1); /* a failed attempt notifies too */
        CHECK_EQ(seen.event, KK_EVENT_SET);
        CHECK_STATUS(seen.status, KK_ELOCKED);
        m = kk_error_message();
        CHECK(m != NULL && strstr(m, "SUPERSECRET") == NULL); /* never contains a secret */

        CHECK_STATUS(kk_remove(kc, svc, "acct"), KK_ELOCKED);
        CHECK_EQ(seen.calls, 2);
        CHECK_EQ(seen.event, KK_EVENT_REMOVE);
        CHECK_STATUS(seen.status, KK_ELOCKED);
        int count = -1;
        CHECK(kt_ss_count_items(svc, "acct", &count) == 0);
        CHECK_EQ(count, kt_server_hides_locked_items() ? 0 : 1); /* nothing removed: see below */

        /* Creating an item needs the collection unlocked: no prompt, no
         * wait (a prompt's wait would last the 5 s request timeout). */
        double start = kt_now();
        CHECK_STATUS(kk_set(kc, svc, "new", "v", 1), KK_ELOCKED);
        CHECK(kt_now() - start < 4.0);
        CHECK(kt_ss_count_items(svc, "new", &count) == 0);
        CHECK_EQ(count, 0);
    }
    /* The same handle works again once the user unlocks; nothing changed. */
    if (kt_unlock_checked()) {
        CHECK_VALUE(kc, svc, "acct", "before", 6);
        int count = -1;
        CHECK(kt_ss_count_items(svc, "new", &count) == 0);
        CHECK_EQ(count, 0);
        CHECK_STATUS(kk_set(kc, svc, "acct", "after", 5), KK_OK);
        CHECK_VALUE(kc, svc, "acct", "after", 5);
        CHECK_STATUS(kk_remove(kc, svc, "acct"), KK_OK);
        CHECK_ABSENT(kc, svc, "acct");
    }
    kk_close(kc);
}

TEST_ON(KT_SECRET_SERVICE, absent_is_only_said_of_what_can_be_seen)
{
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    const char *svc = kt_service();
    CHECK_STATUS(kk_set(kc, svc, "present", "v", 1), KK_OK);
    CHECK_ABSENT(kc, svc, "absent"); /* remembered as absent */
    if (kt_lock_checked()) {
        /* gnome-keyring and KWallet list a locked collection's items, so
         * the search proves absence; KeePassXC shows none of them. */
        kk_status absent = kt_server_hides_locked_items() ? KK_ELOCKED : KK_ENOTFOUND;
        char *value = KT_SENTINEL;
        CHECK_STATUS(kk_get(kc, svc, "absent", &value, NULL), absent);
        CHECK(value == NULL);
        CHECK_STATUS(kk_exists(kc, svc, "absent"), absent);
        CHECK_STATUS(kk_remove(kc, svc, "absent"), absent == KK_ENOTFOUND ? KK_OK : KK_ELOCKED);
        char **accounts = NULL;
        size_t n = 0;
        kk_status listed = kk_list(kc, svc, &accounts, &n);
        if (kt_server_hides_locked_items()) {
            CHECK_STATUS(listed, KK_ELOCKED);
            CHECK(accounts == NULL);
            CHECK(strstr(kk_error_message(), "/org/freedesktop/secrets/collection/") != NULL);
        } else if (CHECK_STATUS(listed, KK_OK)) {
            CHECK_EQ(n, 1);
            CHECK_STR_EQ(accounts[0], "present");
        }
        kk_list_free(accounts);
    }
    if (kt_unlock_checked()) {
        CHECK_ABSENT(kc, svc, "absent");
        CHECK_STATUS(kk_remove(kc, svc, "present"), KK_OK);
    }
    kk_close(kc);
}

TEST_ON(KT_SECRET_SERVICE, secret_tool_item_is_read_and_updated_in_place)
{
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    const char *svc = kt_service();
    REQUIRE(kt_secret_tool_store(svc, "user", "x", "from secret-tool") == 0);
    CHECK_VALUE(kc, svc, "user", "from secret-tool", 16);
    CHECK_STATUS(kk_set(kc, svc, "user", "from keychainkit", 16), KK_OK);
    int count = -1;
    CHECK(kt_ss_count_items(svc, "user", &count) == 0);
    CHECK_EQ(count, 1);
    char out[64];
    if (CHECK(kt_secret_tool_lookup(svc, "user", out, sizeof out) == 0)) {
        out[strcspn(out, "\n")] = '\0';
        CHECK_STR_EQ(out, "from keychainkit");
    }
    CHECK_STATUS(kk_remove(kc, svc, "user"), KK_OK);
    CHECK(kt_ss_count_items(svc, "user", &count) == 0);
    CHECK_EQ(count, 0);
    kk_close(kc);
}

TEST_ON(KT_SECRET_SERVICE, non_ascii_values_cross_with_secret_tool_both_ways)
{
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    const char *svc = kt_service();
    const char *theirs = "p\xc3\xa4ss\tword", *ours = "s3cret \xe2\x9c\x93"; /* "päss<TAB>word", "s3cret ✓" */
    REQUIRE(kt_secret_tool_store(svc, "alice", "from secret-tool", theirs) == 0);
    CHECK_VALUE(kc, svc, "alice", theirs, strlen(theirs));
    /* A new item of ours (not an update of another tool's), read by libsecret. */
    CHECK_STATUS(kk_set(kc, svc, "bob", ours, strlen(ours)), KK_OK);
    char out[64];
    if (CHECK(kt_secret_tool_lookup(svc, "bob", out, sizeof out) == 0)) CHECK_STR_EQ(out, ours);
    CHECK_STATUS(kk_remove(kc, svc, "alice"), KK_OK);
    CHECK_STATUS(kk_remove(kc, svc, "bob"), KK_OK);
    int count = -1;
    CHECK(kt_ss_count_items(svc, "bob", &count) == 0);
    CHECK_EQ(count, 0);
    kk_close(kc);
}

TEST_ON(KT_SECRET_SERVICE, set_keeps_exactly_one_item)
{
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    const char *svc = kt_service();
    int count = -1;
    for (int i = 0; i < 3; i++) CHECK_STATUS(kk_set(kc, svc, "acct", "v", 1), KK_OK);
    CHECK_STATUS(kk_set(kc, svc, "acct", "w", 1), KK_OK);
    CHECK(kt_ss_count_items(svc, "acct", &count) == 0);
    CHECK_EQ(count, 1);
    kk_close(kc);
}

TEST_ON(KT_SECRET_SERVICE, duplicates_are_read_and_all_removed)
{
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    const char *svc = kt_service();
    REQUIRE(kt_ss_create_item(svc, "acct", "first", "one") == 0);
    REQUIRE(kt_ss_create_item(svc, "acct", "second", "two") == 0);
    int count = -1;
    REQUIRE(kt_ss_count_items(svc, "acct", &count) == 0);
    REQUIRE(count == 2);
    char *value = NULL;
    size_t len = 0;
    CHECK_STATUS(kk_get(kc, svc, "acct", &value, &len), KK_OK);
    CHECK(value != NULL && ((len == 3 && strcmp(value, "one") == 0) || (len == 3 && strcmp(value, "two") == 0)));
    kk_secret_free(value);
    CHECK_STATUS(kk_remove(kc, svc, "acct"), KK_OK);
    CHECK(kt_ss_count_items(svc, "acct", &count) == 0);
    CHECK_EQ(count, 0);
    CHECK_ABSENT(kc, svc, "acct");
    kk_close(kc);
}

TEST_ON(KT_SECRET_SERVICE, handles_see_each_others_items_at_once)
{
    kk_keychain *a = kt_open(), *b = kt_open();
    REQUIRE(a != NULL && b != NULL);
    const char *svc = kt_service();
    CHECK_ABSENT(b, svc, "acct");
    CHECK_STATUS(kk_set(a, svc, "acct", "v1", 2), KK_OK);
    CHECK_VALUE(b, svc, "acct", "v1", 2);
    CHECK_STATUS(kk_set(b, svc, "acct", "v2", 2), KK_OK);
    CHECK_VALUE(a, svc, "acct", "v2", 2);
    CHECK_STATUS(kk_remove(a, svc, "acct"), KK_OK);
    CHECK_ABSENT(b, svc, "acct");
    kk_close(a);
    kk_close(b);
}

TEST_ON(KT_SECRET_SERVICE, no_session_bus_is_unavailable_at_once)
{
    const char *saved = getenv("DBUS_SESSION_BUS_ADDRESS");
    char *restore = saved ? strdup(saved) : NULL;
    /* The library reads the address when a handle first connects. */
    REQUIRE(setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent", 1) == 0);
    kk_keychain *kc = NULL;
    CHECK_STATUS(kk_open_secret_service(&kc), KK_OK); /* connecting is deferred */
    if (kc != NULL) {
        char *value = KT_SENTINEL;
        double start = kt_now();
        CHECK_STATUS(kk_get(kc, kt_service(), "acct", &value, NULL), KK_EUNAVAILABLE);
        double elapsed = kt_now() - start;
        if (!CHECK(elapsed < 1.0)) printf("    kk_get took %.3f s\n", elapsed);
        CHECK(value == NULL);
        const char *m = kk_error_message();
        CHECK(m != NULL && m[0] != '\0');
        /* It names the alternative for machines without a Secret Service. */
        if (!CHECK(m != NULL && strstr(m, "kk_open_kernel_keyring") && strstr(m, "KEYCHAINKIT_BACKEND=kernel")))
            printf("    kk_error_message: \"%s\"\n", m);
        start = kt_now();
        CHECK_STATUS(kk_set(kc, kt_service(), "acct", "v", 1), KK_EUNAVAILABLE);
        CHECK_STATUS(kk_remove(kc, kt_service(), "acct"), KK_EUNAVAILABLE);
        elapsed = kt_now() - start;
        if (!CHECK(elapsed < 2.0)) printf("    kk_set + kk_remove took %.3f s\n", elapsed);
        /* Observing needs no bus either: the delivery thread keeps trying,
         * and neither registering nor closing waits for it. */
        statuses seen = {0};
        uint64_t token = 0;
        start = kt_now();
        CHECK_STATUS(kk_observe(kc, kt_service(), "acct", remember, &seen, NULL, &token), KK_OK);
        CHECK_STATUS(kk_set(kc, kt_service(), "acct", "v", 1), KK_EUNAVAILABLE);
        CHECK_EQ(seen.calls, 1);
        kk_close(kc);
        elapsed = kt_now() - start;
        if (!CHECK(elapsed < 2.0)) printf("    kk_observe + kk_set + kk_close took %.3f s\n", elapsed);
    }
    if (restore) {
        setenv("DBUS_SESSION_BUS_ADDRESS", restore, 1);
        free(restore);
    } else {
        unsetenv("DBUS_SESSION_BUS_ADDRESS");
    }
    /* Restored: a new handle reaches the private service again. */
    kk_keychain *again = kt_open();
    if (again != NULL) {
        CHECK_ABSENT(again, kt_service(), "acct");
        kk_close(again);
    }
}
