/* SPDX-License-Identifier: MIT */
/*
 * test_get_many.c — kk_get_many: the result of kk_get() for each account,
 * read together; absent, locked and bad entries; duplicates and more items
 * than the library keeps in flight; freshness against another handle; a
 * fork()ed child's batch on an inherited handle; no bus.
 */
#define _POSIX_C_SOURCE 200809L
#include "kt_fork.h"
#include "kt_keychain.h"
#include "kt_secret_service.h"

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/** One kk_get_many through `kc`, each entry checked against the singles'
 *  status and bytes; returns the batch's status. */
static kk_status batch_agrees(kk_keychain *kc, const char *svc, const char *const *accounts, size_t count,
                              const kk_status *alone, char *const *singles, const size_t *single_lens)
{
    char **values = calloc(count, sizeof *values);
    size_t *lens = calloc(count, sizeof *lens);
    kk_status *each = calloc(count, sizeof *each);
    for (size_t i = 0; i < count; i++) values[i] = KT_SENTINEL;
    kk_status batch = kk_get_many(kc, svc, accounts, count, values, lens, each);
    for (size_t i = 0; i < count; i++) {
        if (!CHECK_STATUS(each[i], alone[i])) fprintf(stderr, "    entry %zu (%s)\n", i, accounts[i] ? accounts[i] : "NULL");
        if (alone[i] == KK_OK && each[i] == KK_OK) {
            CHECK(values[i] != NULL && singles[i] != NULL);
            CHECK_EQ(lens[i], single_lens[i]);
            CHECK(values[i] && singles[i] && lens[i] == single_lens[i] && memcmp(values[i], singles[i], lens[i]) == 0);
            CHECK(values[i] && values[i][lens[i]] == '\0');
        } else {
            CHECK(values[i] == NULL);
        }
        kk_secret_free(values[i]);
    }
    free(values);
    free(lens);
    free(each);
    return batch;
}

/** kk_get_many of `count` accounts, each entry checked against kk_get of
 *  the same account: same status, same bytes. The batch runs twice: on a
 *  new handle, which must search, and on `kc` after the gets, which may
 *  answer from what they found. Returns the batch's status; frees the
 *  values. */
static kk_status get_many_agrees_with_get(kk_keychain *kc, const char *svc, const char *const *accounts, size_t count)
{
    char **singles = calloc(count, sizeof *singles);
    size_t *single_lens = calloc(count, sizeof *single_lens);
    kk_status *alone = calloc(count, sizeof *alone);
    for (size_t i = 0; i < count; i++) {
        singles[i] = NULL;
        alone[i] = kk_get(kc, svc, accounts[i], &singles[i], &single_lens[i]);
    }
    kk_status batch = KK_EUNKNOWN;
    kk_keychain *fresh = kt_open_other(kc);
    if (CHECK(fresh != NULL)) {
        batch = batch_agrees(fresh, svc, accounts, count, alone, singles, single_lens);
        kk_close(fresh);
    }
    CHECK_STATUS(batch_agrees(kc, svc, accounts, count, alone, singles, single_lens), batch);
    for (size_t i = 0; i < count; i++) kk_secret_free(singles[i]);
    free(singles);
    free(single_lens);
    free(alone);
    return batch;
}

TEST(get_many_gives_what_get_gives_for_each_account)
{
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    const char *svc = kt_service();
    CHECK_STATUS(kk_set(kc, svc, "alice", "a-secret", 8), KK_OK);
    CHECK_STATUS(kk_set(kc, svc, "bob", "b\0in", 4), KK_OK); /* a NUL inside */
    CHECK_STATUS(kk_set(kc, svc, "", "empty-account", 13), KK_OK);
    CHECK_STATUS(kk_set(kc, svc, "caf\xC3\xA9", "composed", 8), KK_OK);
    CHECK_STATUS(kk_set(kc, "kk-c-test.elsewhere", "carol", "other-service", 13), KK_OK);
    /* absent ones, a canonically equal but distinct name, another service's
     * account, one asked twice */
    const char *accounts[] = {"alice", "missing", "bob", "", "cafe\xCC\x81", "caf\xC3\xA9", "carol", "alice"};
    size_t count = sizeof accounts / sizeof *accounts;
    CHECK_STATUS(get_many_agrees_with_get(kc, svc, accounts, count), KK_OK);
    /* The same accounts of a service of many more items (searched for one
     * by one, not read item by item). */
    for (int i = 0; i < 40; i++) {
        char name[16];
        snprintf(name, sizeof name, "filler-%02d", i);
        CHECK_STATUS(kk_set(kc, svc, name, "filler", 6), KK_OK);
    }
    CHECK_STATUS(get_many_agrees_with_get(kc, svc, accounts, count), KK_OK);

    char *values[8];
    kk_status each[8];
    CHECK_STATUS(kk_get_many(kc, svc, accounts, count, values, NULL, each), KK_OK); /* out_lens may be NULL */
    CHECK_STATUS(each[0], KK_OK);
    CHECK_STATUS(each[1], KK_ENOTFOUND);
    CHECK_STATUS(each[4], KK_ENOTFOUND);
    CHECK_STATUS(each[6], KK_ENOTFOUND);
    CHECK(values[0] && strcmp(values[0], "a-secret") == 0);
    CHECK(values[7] && values[7] != values[0] && strcmp(values[7], "a-secret") == 0); /* its own copy */
    CHECK(values[5] && strcmp(values[5], "composed") == 0);
    for (size_t i = 0; i < count; i++) kk_secret_free(values[i]);
    kk_remove(kc, "kk-c-test.elsewhere", "carol");
    kk_close(kc);
}

TEST(get_many_of_an_empty_service_is_absent_for_each)
{
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    const char *accounts[] = {"a", "b"};
    char *values[2] = {KT_SENTINEL, KT_SENTINEL};
    kk_status each[2] = {KK_OK, KK_OK};
    CHECK_STATUS(kk_get_many(kc, kt_service(), accounts, 2, values, NULL, each), KK_OK);
    CHECK_STATUS(each[0], KK_ENOTFOUND);
    CHECK_STATUS(each[1], KK_ENOTFOUND);
    CHECK(values[0] == NULL && values[1] == NULL);
    kk_close(kc);
}

TEST(get_many_reads_more_accounts_than_it_keeps_in_flight)
{
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    const char *svc = kt_service();
    enum { STORED = 150, ASKED = 160 };
    static char names[ASKED][16];
    const char *accounts[ASKED];
    for (int i = 0; i < ASKED; i++) {
        snprintf(names[i], sizeof names[i], "acct-%03d", (i * 37) % ASKED); /* not in creation order */
        accounts[i] = names[i];
    }
    for (int i = 0; i < STORED; i++) {
        char name[16], value[32];
        snprintf(name, sizeof name, "acct-%03d", i);
        int len = snprintf(value, sizeof value, "value of %d", i);
        if (!CHECK_STATUS(kk_set(kc, svc, name, value, (size_t)len), KK_OK)) break;
    }
    CHECK_STATUS(get_many_agrees_with_get(kc, svc, accounts, ASKED), KK_OK);
    kk_close(kc);
}

TEST(get_many_marks_bad_accounts_and_reads_the_others)
{
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    const char *svc = kt_service();
    CHECK_STATUS(kk_set(kc, svc, "good", "g", 1), KK_OK);
    const char *accounts[] = {"good", NULL, "bad\xFF", "missing"};
    char *values[4];
    size_t lens[4];
    kk_status each[4];
    CHECK_STATUS(kk_get_many(kc, svc, accounts, 4, values, lens, each), KK_EINVAL);
    CHECK(strstr(kk_error_message(), "account 1") != NULL);
    CHECK_STATUS(each[0], KK_OK);
    CHECK(values[0] && lens[0] == 1 && values[0][0] == 'g');
    CHECK_STATUS(each[1], KK_EINVAL);
    CHECK_STATUS(each[2], KK_EINVAL);
    CHECK_STATUS(each[3], KK_ENOTFOUND);
    CHECK(values[1] == NULL && values[2] == NULL && values[3] == NULL);
    kk_secret_free(values[0]);
    kk_close(kc);
}

TEST(get_many_rejects_bad_arguments)
{
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    const char *accounts[] = {"a"};
    char *values[1] = {KT_SENTINEL};
    kk_status each[1] = {KK_OK};
    CHECK_STATUS(kk_get_many(NULL, "s", accounts, 1, values, NULL, each), KK_EINVAL);
    CHECK(values[0] == KT_SENTINEL); /* nothing touched */
    CHECK_STATUS(kk_get_many(kc, "s", NULL, 1, values, NULL, each), KK_EINVAL);
    CHECK_STATUS(kk_get_many(kc, "s", accounts, 1, NULL, NULL, each), KK_EINVAL);
    CHECK_STATUS(kk_get_many(kc, "s", accounts, 1, values, NULL, NULL), KK_EINVAL);
    CHECK(values[0] == KT_SENTINEL);
    CHECK_STATUS(kk_get_many(kc, "s", NULL, 0, NULL, NULL, NULL), KK_OK); /* nothing asked */
    /* A count no array can have: refused before any entry is touched (it
     * was KK_OK with nothing written, and SIZE_MAX/8+1 wrote past them). */
    size_t impossible[] = {SIZE_MAX, SIZE_MAX / 8 + 1, (size_t)PTRDIFF_MAX / sizeof(char *) + 1};
    for (size_t i = 0; i < sizeof impossible / sizeof impossible[0]; i++) {
        CHECK_STATUS(kk_get_many(kc, "s", accounts, impossible[i], values, NULL, each), KK_EINVAL);
        CHECK(values[0] == KT_SENTINEL);
        CHECK_STATUS(each[0], KK_OK);
        const char *m = kk_error_message();
        CHECK(m != NULL && strstr(m, "count") != NULL);
    }
    /* A bad service is every entry's status. */
    CHECK_STATUS(kk_get_many(kc, "", accounts, 1, values, NULL, each), KK_EINVAL);
    CHECK(values[0] == NULL);
    CHECK_STATUS(each[0], KK_EINVAL);
    values[0] = KT_SENTINEL;
    CHECK_STATUS(kk_get_many(kc, "bad\xFF", accounts, 1, values, NULL, each), KK_EINVAL);
    CHECK_STATUS(each[0], KK_EINVAL);
    CHECK(values[0] == NULL);
    kk_close(kc);
}

TEST_ON(KT_HEARS_OTHERS, get_many_sees_another_handles_writes_at_once)
{
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    kk_keychain *other = kt_open_other(kc);
    REQUIRE(other != NULL);
    const char *svc = kt_service();
    const char *accounts[] = {"x", "y"};
    char *values[2];
    kk_status each[2];
    CHECK_STATUS(kk_set(kc, svc, "x", "1", 1), KK_OK);
    CHECK_STATUS(kk_get_many(kc, svc, accounts, 2, values, NULL, each), KK_OK);
    CHECK_STATUS(each[1], KK_ENOTFOUND);
    kk_secret_free(values[0]);
    /* What the batch learned is no excuse for a stale single read. */
    CHECK_STATUS(kk_set(other, svc, "y", "2", 1), KK_OK);
    CHECK_STATUS(kk_set(other, svc, "x", "3", 1), KK_OK);
    CHECK_VALUE(kc, svc, "y", "2", 1);
    CHECK_VALUE(kc, svc, "x", "3", 1);
    CHECK_STATUS(kk_remove(other, svc, "x"), KK_OK);
    CHECK_STATUS(kk_get_many(kc, svc, accounts, 2, values, NULL, each), KK_OK);
    CHECK_STATUS(each[0], KK_ENOTFOUND);
    CHECK_STATUS(each[1], KK_OK);
    CHECK(values[0] == NULL && values[1] && strcmp(values[1], "2") == 0);
    kk_secret_free(values[1]);
    CHECK_ABSENT(kc, svc, "x");
    kk_close(other);
    kk_close(kc);
}

TEST_ON(KT_SECRET_SERVICE, get_many_of_a_locked_collection_is_elocked_never_absent)
{
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    const char *svc = kt_service();
    CHECK_STATUS(kk_set(kc, svc, "one", "1", 1), KK_OK);
    CHECK_STATUS(kk_set(kc, svc, "two", "2", 1), KK_OK);
    CHECK_STATUS(kk_set(kc, svc, "three", "3", 1), KK_OK);
    const char *accounts[] = {"one", "absent", "two"};
    char *values[3] = {KT_SENTINEL, KT_SENTINEL, KT_SENTINEL};
    kk_status each[3];
    if (kt_lock_checked()) {
        CHECK_STATUS(get_many_agrees_with_get(kc, svc, accounts, 3), KK_ELOCKED);
        /* One account of three: searched for alone. */
        CHECK_STATUS(get_many_agrees_with_get(kc, svc, accounts, 1), KK_ELOCKED);
        CHECK_STATUS(get_many_agrees_with_get(kc, svc, accounts + 1, 1),
                     kt_server_hides_locked_items() ? KK_ELOCKED : KK_OK);
        CHECK_STATUS(kk_get_many(kc, svc, accounts, 3, values, NULL, each), KK_ELOCKED);
        CHECK_STATUS(each[0], KK_ELOCKED);
        CHECK_STATUS(each[1], kt_server_hides_locked_items() ? KK_ELOCKED : KK_ENOTFOUND);
        CHECK_STATUS(each[2], KK_ELOCKED);
        CHECK(values[0] == NULL && values[1] == NULL && values[2] == NULL);
        CHECK(strstr(kk_error_message(), "locked") != NULL);
    }
    if (kt_unlock_checked()) {
        CHECK_STATUS(get_many_agrees_with_get(kc, svc, accounts, 3), KK_OK);
        CHECK_STATUS(get_many_agrees_with_get(kc, svc, accounts, 1), KK_OK);
    }
    kk_close(kc);
}

TEST_ON(KT_SECRET_SERVICE, get_many_reads_the_item_get_reads_among_duplicates)
{
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    const char *svc = kt_service();
    REQUIRE(kt_ss_create_item(svc, "acct", "first", "one") == 0);
    REQUIRE(kt_ss_create_item(svc, "acct", "second", "two") == 0);
    REQUIRE(kt_secret_tool_store(svc, "tool", "by secret-tool", "from-the-tool") == 0);
    const char *accounts[] = {"acct", "tool"};
    CHECK_STATUS(get_many_agrees_with_get(kc, svc, accounts, 2), KK_OK);
    /* One account of the three items: searched for alone. */
    CHECK_STATUS(get_many_agrees_with_get(kc, svc, accounts, 1), KK_OK);
    CHECK_STATUS(get_many_agrees_with_get(kc, svc, accounts + 1, 1), KK_OK);
    kk_close(kc);
}

TEST_ON(KT_SECRET_SERVICE | KT_FILE, get_many_works_in_a_forked_child_on_the_inherited_handle)
{
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    const char *svc = kt_service();
    const char *accounts[] = {"a", "b", "absent"};
    CHECK_STATUS(kk_set(kc, svc, "a", "1", 1), KK_OK);
    CHECK_STATUS(kk_set(kc, svc, "b", "2", 1), KK_OK);
    CHECK_STATUS(get_many_agrees_with_get(kc, svc, accounts, 3), KK_OK); /* the parent's connection in use */
    pid_t pid = kt_fork();
    REQUIRE(CHECK(pid >= 0));
    if (pid == 0) {
        /* The child never uses the parent's connection: it opens its own. */
        KT_CHILD(CHECK_STATUS(get_many_agrees_with_get(kc, svc, accounts, 3), KK_OK));
        KT_CHILD(CHECK_STATUS(kk_set(kc, svc, "b", "3", 1), KK_OK));
        kk_close(kc);
        kt_child_exit();
    }
    REQUIRE(CHECK_CHILD(pid, "the child"));
    /* The child's write, seen by the parent's batch; its handle still works. */
    char *values[3];
    kk_status each[3];
    CHECK_STATUS(kk_get_many(kc, svc, accounts, 3, values, NULL, each), KK_OK);
    CHECK(values[1] != NULL && strcmp(values[1], "3") == 0);
    for (int i = 0; i < 3; i++) kk_secret_free(values[i]);
    kk_close(kc);
}

TEST_ON(KT_SECRET_SERVICE, get_many_without_a_session_bus_is_unavailable_at_once_for_every_entry)
{
    const char *saved = getenv("DBUS_SESSION_BUS_ADDRESS");
    char *restore = saved ? strdup(saved) : NULL;
    REQUIRE(setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent", 1) == 0);
    kk_keychain *kc = NULL;
    CHECK_STATUS(kk_open_secret_service(&kc), KK_OK); /* connecting is deferred */
    if (kc != NULL) {
        const char *accounts[] = {"a", "b"};
        char *values[2] = {KT_SENTINEL, KT_SENTINEL};
        kk_status each[2] = {KK_OK, KK_OK};
        double start = kt_now();
        CHECK_STATUS(kk_get_many(kc, kt_service(), accounts, 2, values, NULL, each), KK_EUNAVAILABLE);
        double elapsed = kt_now() - start;
        if (!CHECK(elapsed < 1.0)) printf("    kk_get_many took %.3f s\n", elapsed);
        CHECK_STATUS(each[0], KK_EUNAVAILABLE); /* never "absent" */
        CHECK_STATUS(each[1], KK_EUNAVAILABLE);
        CHECK(values[0] == NULL && values[1] == NULL);
        CHECK(strstr(kk_error_message(), "kk_open_kernel_keyring") != NULL);
        kk_close(kc);
    }
    if (restore) {
        setenv("DBUS_SESSION_BUS_ADDRESS", restore, 1);
        free(restore);
    } else {
        unsetenv("DBUS_SESSION_BUS_ADDRESS");
    }
}
