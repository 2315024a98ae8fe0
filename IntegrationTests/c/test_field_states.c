/*
 * test_field_states.c — the contract in the states real machines are in,
 * not only the ones a test suite makes with Lock(): a keyring gnome-keyring
 * loaded from disk without its password (after an SSH or automatic login,
 * or after the daemon crashed and the bus activated it again), met by a
 * handle opened before the restart and by one opened after, and the same
 * keyring unlocked again. Such a daemon shows its locked items' attributes
 * only hashed (SERVERS-2026.md); libsecret reads them as absent.
 */
#define _POSIX_C_SOURCE 200809L

#include "kt_keychain.h"
#include "kt_secret_service.h"

#include <stdio.h>
#include <string.h>

/** A login on a host unique to the running test. */
static kk_server_login login_of(const char *account)
{
    static char server[200];
    snprintf(server, sizeof server, "%s.example", kt_service());
    kk_server_login login = KK_SERVER_LOGIN_INIT;
    login.server = server;
    login.account = account;
    login.protocol = "https";
    return login;
}

/** The contract for a keyring loaded locked, through `kc`: the stored keys
 *  "a1" and "b2" are locked, never absent nor another key's; "zz", which was
 *  never stored, is absent (gnome-keyring's search matches the hashes). */
static void check_loaded_locked(kk_keychain *kc, const char *svc)
{
    char *value = KT_SENTINEL;
    CHECK_STATUS(kk_get(kc, svc, "a1", &value, NULL), KK_ELOCKED);
    CHECK(value == NULL);
    const char *m = kk_error_message();
    CHECK(m != NULL && strstr(m, "locked") != NULL);
    CHECK_ABSENT(kc, svc, "zz");
    CHECK_STATUS(kk_exists(kc, svc, "a1"), KK_OK);
    CHECK_STATUS(kk_exists(kc, svc, "zz"), KK_ENOTFOUND);

    const char *accounts[] = {"a1", "zz", "b2"};
    char *values[3] = {KT_SENTINEL, KT_SENTINEL, KT_SENTINEL};
    kk_status each[3] = {KK_OK, KK_OK, KK_OK};
    CHECK_STATUS(kk_get_many(kc, svc, accounts, 3, values, NULL, each), KK_ELOCKED);
    CHECK_STATUS(each[0], KK_ELOCKED);
    CHECK_STATUS(each[1], KK_ENOTFOUND);
    CHECK_STATUS(each[2], KK_ELOCKED);
    CHECK(values[0] == NULL && values[1] == NULL && values[2] == NULL);

    char **list = (char **)KT_SENTINEL;
    size_t count = 99;
    CHECK_STATUS(kk_list(kc, svc, &list, &count), KK_ELOCKED); /* not an empty list */
    CHECK(list == NULL);

    CHECK_STATUS(kk_set(kc, svc, "a1", "new", 3), KK_ELOCKED);
    CHECK_STATUS(kk_remove(kc, svc, "a1"), KK_ELOCKED); /* never "removed" while it stays */
    CHECK_STATUS(kk_remove(kc, svc, "zz"), KK_OK);      /* absent: nothing to remove */

    kk_server_login login = login_of("carol");
    value = KT_SENTINEL;
    CHECK_STATUS(kk_server_login_get(kc, &login, &value, NULL), KK_ELOCKED);
    CHECK(value == NULL);
    list = (char **)KT_SENTINEL;
    CHECK_STATUS(kk_server_login_accounts(kc, login.server, &list, &count), KK_ELOCKED);
    CHECK(list == NULL);
    CHECK_STATUS(kk_server_login_remove(kc, &login), KK_ELOCKED);
}

TEST_ONLY_ON_SERVER(KT_SECRET_SERVICE, "gnome-keyring", loaded_locked_from_disk_is_elocked_not_absent)
{
    kk_keychain *before = kt_open(); /* open across the restart */
    REQUIRE(before != NULL);
    const char *svc = kt_service();
    CHECK_STATUS(kk_set(before, svc, "a1", "v1", 2), KK_OK);
    CHECK_STATUS(kk_set(before, svc, "b2", "v2", 2), KK_OK);
    kk_server_login login = login_of("carol");
    CHECK_STATUS(kk_server_login_set(before, &login, "pw", 2), KK_OK);
    CHECK_VALUE(before, svc, "a1", "v1", 2); /* the handle remembers the item's path */

    REQUIRE(kt_ss_restart_locked() == 0);
    /* The field state itself, not the lab's: only hashes are shown. */
    int hashed = 0, items = 0;
    CHECK(kt_ss_items_hashed(svc, "a1", &hashed, &items) == 0);
    CHECK(hashed);
    CHECK_EQ(items, 1);

    check_loaded_locked(before, svc);
    kk_keychain *after = kt_open();
    if (CHECK(after != NULL)) check_loaded_locked(after, svc);

    /* Unlocked after a locked start: every value is there, unchanged. */
    if (kt_unlock_checked()) {
        kk_keychain *handles[] = {before, after};
        for (int i = 0; i < 2; i++) {
            if (handles[i] == NULL) continue;
            CHECK_VALUE(handles[i], svc, "a1", "v1", 2);
            CHECK_VALUE(handles[i], svc, "b2", "v2", 2);
            char *value = NULL;
            CHECK_STATUS(kk_server_login_get(handles[i], &login, &value, NULL), KK_OK);
            CHECK_STR_EQ(value, "pw");
            kk_secret_free(value);
        }
        char **list = NULL;
        size_t count = 0;
        if (CHECK_STATUS(kk_list(before, svc, &list, &count), KK_OK) && CHECK_EQ(count, 2))
            CHECK(strcmp(list[0], "a1") == 0 && strcmp(list[1], "b2") == 0);
        kk_list_free(list);
        CHECK_STATUS(kk_set(before, svc, "a1", "v3", 2), KK_OK);
        CHECK_VALUE(after, svc, "a1", "v3", 2);
    }
    kk_close(after);
    kk_close(before);
}
