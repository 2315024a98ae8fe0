/* SPDX-License-Identifier: MIT */
/*
 * test_field_states.c — the contract in the states real machines are in,
 * not only the ones a test suite makes with Lock(): a keyring loaded from
 * disk without its password (after an SSH or automatic login, or after the
 * daemon crashed and the bus activated it again), met by a handle opened
 * before the restart and by one opened after, and the same keyring
 * unlocked again; and a database that locked itself, idle, between two
 * calls. gnome-keyring then shows its locked items' attributes only hashed
 * (SERVERS-2026.md), which libsecret reads as absent; oo7-daemon and
 * KeePassXC show none of a locked collection's items, KWallet shows them
 * in clear. Runs on gnome-keyring, KWallet and KeePassXC (started again
 * without the password, as a login starts them) and on the fake in each
 * personality (scripts/with-fake-secret-service.sh).
 */
#define _POSIX_C_SOURCE 200809L

#include "kt_keychain.h"
#include "kt_secret_service.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

/** The fake in each personality (scripts/with-fake-secret-service.sh). */
#define FAKES "fake|fake-oo7|fake-ksecretd|fake-keepassxc-idle"
/** The servers the runner can restart locked (kt_ss_restart_locked). */
#define RESTARTABLE "gnome-keyring|kwallet|keepassxc|keychainkitd|" FAKES

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

/** Whether the server shows a keyring loaded locked with its attributes
 *  in clear (KWallet 5.103, and its successor as the fake plays it);
 *  gnome-keyring shows hashes, oo7 and KeePassXC nothing. */
/** Whether the server lists every item of a collection loaded locked,
 *  knowing nothing of them (keychainkitd: the keyring file's attribute
 *  hashes are keyed with the password, so no search can match them). */
static int lists_every_locked_item(void)
{
    return strcmp(kt_server(), "keychainkitd") == 0;
}

static int shows_loaded_attributes(void)
{
    return strcmp(kt_server(), "kwallet") == 0 || strcmp(kt_server(), "fake-ksecretd") == 0;
}

/** The contract for a keyring loaded locked, through `kc`: the stored keys
 *  "a1", "b2" and "c3" are locked, never absent nor another key's; "zz", which was
 *  never stored, is absent where the server lists locked items
 *  (gnome-keyring's search matches the hashes), and locked where it hides
 *  them (nothing shows it absent). */
static void check_loaded_locked(kk_keychain *kc, const char *svc)
{
    int hides = kt_server_hides_locked_items() || lists_every_locked_item();
    kk_status never_stored = hides ? KK_ELOCKED : KK_ENOTFOUND;
    char *value = KT_SENTINEL;
    CHECK_STATUS(kk_get(kc, svc, "a1", &value, NULL), KK_ELOCKED);
    CHECK(value == NULL);
    const char *m = kk_error_message();
    CHECK(m != NULL && strstr(m, "locked") != NULL);
    value = KT_SENTINEL;
    CHECK_STATUS(kk_get(kc, svc, "zz", &value, NULL), never_stored);
    CHECK(value == NULL);
    CHECK_STATUS(kk_exists(kc, svc, "a1"), hides ? KK_ELOCKED : KK_OK);
    CHECK_STATUS(kk_exists(kc, svc, "zz"), never_stored);

    const char *accounts[] = {"a1", "zz", "b2"};
    char *values[3] = {KT_SENTINEL, KT_SENTINEL, KT_SENTINEL};
    kk_status each[3] = {KK_OK, KK_OK, KK_OK};
    CHECK_STATUS(kk_get_many(kc, svc, accounts, 3, values, NULL, each), KK_ELOCKED);
    CHECK_STATUS(each[0], KK_ELOCKED);
    CHECK_STATUS(each[1], never_stored);
    CHECK_STATUS(each[2], KK_ELOCKED);
    CHECK(values[0] == NULL && values[1] == NULL && values[2] == NULL);
    /* One account of the service's three: the batch searches for it alone. */
    for (int i = 0; i < 2; i++) {
        kk_status alone = i == 0 ? KK_ELOCKED : never_stored;
        values[0] = KT_SENTINEL;
        CHECK_STATUS(kk_get_many(kc, svc, &accounts[i], 1, values, NULL, each), alone == KK_ENOTFOUND ? KK_OK : alone);
        CHECK_STATUS(each[0], alone);
        CHECK(values[0] == NULL);
    }

    char **list = (char **)KT_SENTINEL;
    size_t count = 99;
    if (shows_loaded_attributes()) { /* the accounts can be named */
        if (CHECK_STATUS(kk_list(kc, svc, &list, &count), KK_OK) && CHECK_EQ(count, 3))
            CHECK(strcmp(list[0], "a1") == 0 && strcmp(list[1], "b2") == 0 && strcmp(list[2], "c3") == 0);
        kk_list_free(list);
    } else {
        CHECK_STATUS(kk_list(kc, svc, &list, &count), KK_ELOCKED); /* not an empty list */
        CHECK(list == NULL);
    }

    CHECK_STATUS(kk_set(kc, svc, "a1", "new", 3), KK_ELOCKED);
    CHECK_STATUS(kk_remove(kc, svc, "a1"), KK_ELOCKED); /* never "removed" while it stays */
    CHECK_STATUS(kk_remove(kc, svc, "zz"), hides ? KK_ELOCKED : KK_OK); /* absent: nothing to remove */

    kk_server_login login = login_of("carol");
    value = KT_SENTINEL;
    CHECK_STATUS(kk_server_login_get(kc, &login, &value, NULL), KK_ELOCKED);
    CHECK(value == NULL);
    list = (char **)KT_SENTINEL;
    kk_status logins = kk_server_login_accounts(kc, login.server, &list, &count);
    if (shows_loaded_attributes()) {
        if (CHECK_STATUS(logins, KK_OK) && CHECK_EQ(count, 1)) CHECK_STR_EQ(list[0], "carol");
        kk_list_free(list);
    } else {
        CHECK_STATUS(logins, KK_ELOCKED);
        CHECK(list == NULL);
    }
    CHECK_STATUS(kk_server_login_remove(kc, &login), KK_ELOCKED);
}

TEST_ONLY_ON_SERVER(KT_SECRET_SERVICE, RESTARTABLE, loaded_locked_from_disk_is_elocked_not_absent)
{
    kk_keychain *before = kt_open(); /* open across the restart */
    REQUIRE(before != NULL);
    const char *svc = kt_service();
    CHECK_STATUS(kk_set(before, svc, "a1", "v1", 2), KK_OK);
    CHECK_STATUS(kk_set(before, svc, "b2", "v2", 2), KK_OK);
    CHECK_STATUS(kk_set(before, svc, "c3", "v3", 2), KK_OK);
    kk_server_login login = login_of("carol");
    CHECK_STATUS(kk_server_login_set(before, &login, "pw", 2), KK_OK);
    CHECK_VALUE(before, svc, "a1", "v1", 2); /* the handle remembers the item's path */

    REQUIRE(kt_ss_restart_locked() == 0);
    /* The field state itself, not the lab's: only hashes are shown, or
     * nothing at all. */
    int hashed = 0, items = 0;
    CHECK(kt_ss_items_hashed(svc, "a1", &hashed, &items) == 0);
    if (kt_server_hides_locked_items()) {
        CHECK_EQ(items, 0);
    } else if (lists_every_locked_item()) {
        CHECK(items >= 4); /* a1, b2, c3 and carol's login, at least */
        CHECK(!hashed);
    } else {
        CHECK_EQ(items, 1);
        CHECK(hashed == !shows_loaded_attributes());
    }

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
            const char *one[] = {"c3"}; /* one of three: searched for alone */
            char *read[1] = {NULL};
            kk_status each[1] = {KK_EUNKNOWN};
            CHECK_STATUS(kk_get_many(handles[i], svc, one, 1, read, NULL, each), KK_OK);
            CHECK_STATUS(each[0], KK_OK);
            CHECK_STR_EQ(read[0], "v3");
            kk_secret_free(read[0]);
            char *value = NULL;
            CHECK_STATUS(kk_server_login_get(handles[i], &login, &value, NULL), KK_OK);
            CHECK_STR_EQ(value, "pw");
            kk_secret_free(value);
        }
        char **list = NULL;
        size_t count = 0;
        if (CHECK_STATUS(kk_list(before, svc, &list, &count), KK_OK) && CHECK_EQ(count, 3))
            CHECK(strcmp(list[0], "a1") == 0 && strcmp(list[1], "b2") == 0 && strcmp(list[2], "c3") == 0);
        kk_list_free(list);
        CHECK_STATUS(kk_set(before, svc, "a1", "v3", 2), KK_OK);
        CHECK_VALUE(after, svc, "a1", "v3", 2);
    }
    kk_close(after);
    kk_close(before);
}

/* The name's owner replaced by another server under an open handle, as
 * when a user moves from gnome-keyring or KWallet to another Secret
 * Service (KeePassXC names its items by UUID, so no path repeats): nothing
 * the handle learnt of the old server answers for the new one. The new
 * server (the fake) numbers its items from the number the old one gave
 * "a1", so the path the handle remembers for "a1" names another key's item
 * there; the absence it remembers for "b2" is wrong there too. */
TEST_ONLY_ON_SERVER(KT_SECRET_SERVICE, "gnome-keyring|kwallet", the_name_taken_by_another_server_under_an_open_handle)
{
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    const char *svc = kt_service();
    CHECK_STATUS(kk_set(kc, svc, "a1", "old", 3), KK_OK);
    CHECK_VALUE(kc, svc, "a1", "old", 3); /* its path remembered */
    CHECK_ABSENT(kc, svc, "b2");          /* its absence remembered */
    unsigned number = 0;
    REQUIRE(kt_ss_item_number(svc, "a1", &number) == 0);
    pid_t fake = -1;
    if (CHECK(kt_ss_replace_with_fake(number, &fake) == 0)) {
        unsigned taken = 0;
        CHECK(kt_ss_create_item(svc, "b2", "b2", "new-b2") == 0);
        CHECK(kt_ss_item_number(svc, "b2", &taken) == 0 && taken == number); /* a1's old path */
        char *value = KT_SENTINEL;
        CHECK_STATUS(kk_get(kc, svc, "a1", &value, NULL), KK_ENOTFOUND); /* never b2's value */
        CHECK(value == NULL);
        CHECK_VALUE(kc, svc, "b2", "new-b2", 6);
        const char *both[] = {"a1", "b2"};
        char *values[2] = {KT_SENTINEL, KT_SENTINEL};
        kk_status each[2] = {KK_EUNKNOWN, KK_EUNKNOWN};
        CHECK_STATUS(kk_get_many(kc, svc, both, 2, values, NULL, each), KK_OK);
        CHECK_STATUS(each[0], KK_ENOTFOUND);
        CHECK_STATUS(each[1], KK_OK);
        CHECK(values[0] == NULL && values[1] != NULL && strcmp(values[1], "new-b2") == 0);
        kk_secret_free(values[1]);
        CHECK_STATUS(kk_set(kc, svc, "a1", "new", 3), KK_OK); /* written to the new server */
        kk_keychain *other = kt_open();
        if (CHECK(other != NULL)) CHECK_VALUE(other, svc, "a1", "new", 3);
        kk_close(other);
    }
    CHECK(kt_ss_end_fake(fake) == 0);
    kk_close(kc);
}

/* A server that sends its Diffie-Hellman public key without leading zero
 * bytes (ksecretd before KF 6.25 and KWallet 5.103, one session in 256;
 * libsecret's exchange then fails) is understood: the fake makes every
 * session's key short. */
TEST_ONLY_ON_SERVER(KT_SECRET_SERVICE, FAKES, a_short_public_key_from_the_server_is_understood)
{
    REQUIRE(kt_fake_set_mode("short-public-key", "") == 0);
    const char *svc = kt_service();
    for (int session = 0; session < 4; session++) { /* a new session each */
        kk_secret_service_options options = KK_SECRET_SERVICE_OPTIONS_INIT;
        options.transfer = KK_TRANSFER_REQUIRE_ENCRYPTED;
        kk_keychain *kc = NULL;
        if (!CHECK_STATUS(kk_open_secret_service_with(&options, &kc), KK_OK)) break;
        CHECK_STATUS(kk_set(kc, svc, "acct", "s\xc3\xa9same", 7), KK_OK);
        CHECK_VALUE(kc, svc, "acct", "s\xc3\xa9same", 7);
        kk_close(kc);
    }
    CHECK(kt_fake_set_mode("short-public-key", NULL) == 0);
    kk_keychain *kc = kt_open();
    if (CHECK(kc != NULL)) CHECK_STATUS(kk_remove(kc, svc, "acct"), KK_OK);
    kk_close(kc);
}

/* One session in 256 has a shared secret whose first byte is zero, which
 * servers encode differently (gnome-keyring pads it, KWallet strips it):
 * the client opens another session with the same process, also when the
 * secret is derived while the handle's first search travels. The fake
 * makes each connection's first session so; a handle whose first call is
 * a get, and one whose first call is a set, read and write through the
 * second session. */
TEST_ONLY_ON_SERVER(KT_SECRET_SERVICE, FAKES, an_ambiguous_shared_secret_takes_another_session)
{
    const char *svc = kt_service();
    kk_keychain *writer = kt_open();
    REQUIRE(writer != NULL);
    CHECK_STATUS(kk_set(writer, svc, "acct", "first", 5), KK_OK);
    REQUIRE(kt_fake_set_mode("ambiguous-secret", "") == 0);
    kk_secret_service_options options = KK_SECRET_SERVICE_OPTIONS_INIT;
    options.transfer = KK_TRANSFER_REQUIRE_ENCRYPTED;
    kk_keychain *reader = NULL;
    if (CHECK_STATUS(kk_open_secret_service_with(&options, &reader), KK_OK)) {
        CHECK_VALUE(reader, svc, "acct", "first", 5); /* its first call */
        CHECK_STATUS(kk_set(reader, svc, "acct", "second", 6), KK_OK);
    }
    kk_close(reader);
    kk_keychain *setter = NULL;
    if (CHECK_STATUS(kk_open_secret_service_with(&options, &setter), KK_OK)) {
        CHECK_STATUS(kk_set(setter, svc, "acct", "s\xc3\xa9same", 7), KK_OK); /* its first call */
        CHECK_VALUE(setter, svc, "acct", "s\xc3\xa9same", 7);
    }
    kk_close(setter);
    CHECK(kt_fake_set_mode("ambiguous-secret", NULL) == 0);
    CHECK_VALUE(writer, svc, "acct", "s\xc3\xa9same", 7);
    CHECK_STATUS(kk_remove(writer, svc, "acct"), KK_OK);
    kk_close(writer);
}

/* KeePassXC >= 2.7.11 locks an idle database after 900 s by default and
 * hides its items; it announces the lock only after it stopped showing
 * them. A handle that knew the items before reads them as locked, never as
 * absent, in the gap and after; unlocked again, all is there. */
TEST_ONLY_ON_SERVER(KT_SECRET_SERVICE, "fake-keepassxc-idle", an_idle_lock_between_two_calls_is_elocked_not_absent)
{
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    const char *svc = kt_service();
    CHECK_STATUS(kk_set(kc, svc, "a1", "v1", 2), KK_OK);
    CHECK_STATUS(kk_set(kc, svc, "b2", "v2", 2), KK_OK);
    CHECK_VALUE(kc, svc, "a1", "v1", 2); /* the handle knows the item's path */
    REQUIRE(kt_fake_set_mode("idle-lock", "300") == 0);
    CHECK_VALUE(kc, svc, "a1", "v1", 2);
    /* Past the idle lock (300 ms), before its announcement (200 ms later). */
    struct timespec pause = {0, 380 * 1000 * 1000};
    nanosleep(&pause, NULL);
    char *value = KT_SENTINEL;
    CHECK_STATUS(kk_get(kc, svc, "a1", &value, NULL), KK_ELOCKED);
    CHECK(value == NULL);
    int locked = 0;
    CHECK(kt_ss_is_locked(&locked) == 0);
    CHECK(locked);
    /* Announced by now: nothing stale is left either way. */
    pause.tv_nsec = 300 * 1000 * 1000;
    nanosleep(&pause, NULL);
    value = KT_SENTINEL;
    CHECK_STATUS(kk_get(kc, svc, "b2", &value, NULL), KK_ELOCKED);
    CHECK_STATUS(kk_get(kc, svc, "zz", &value, NULL), KK_ELOCKED); /* cannot be told absent */
    CHECK(value == NULL);
    CHECK_STATUS(kk_exists(kc, svc, "a1"), KK_ELOCKED);
    char **list = (char **)KT_SENTINEL;
    size_t count = 99;
    CHECK_STATUS(kk_list(kc, svc, &list, &count), KK_ELOCKED);
    CHECK(list == NULL);
    CHECK_STATUS(kk_remove(kc, svc, "a1"), KK_ELOCKED);
    CHECK(kt_fake_set_mode("idle-lock", "900000") == 0); /* KeePassXC's default again */
    if (kt_unlock_checked()) {
        CHECK_VALUE(kc, svc, "a1", "v1", 2);
        CHECK_VALUE(kc, svc, "b2", "v2", 2);
        CHECK_STATUS(kk_remove(kc, svc, "a1"), KK_OK);
        CHECK_STATUS(kk_remove(kc, svc, "b2"), KK_OK);
    }
    kk_close(kc);
}
