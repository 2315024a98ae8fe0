/* SPDX-License-Identifier: MIT */
/*
 * test_unlock.c — kk_unlock() and kk_lock(): a collection unlocked with its
 * password and no dialog (gnome-keyring's UnlockWithMasterPassword, which
 * oo7-daemon also offers: the fake plays it), as a terminal user over SSH needs; the password
 * buffer wiped whatever happens; a wrong password refused with the
 * collection left locked; a keyring loaded locked after a restart unlocked
 * so; and, on servers that take no password over the bus, a clear
 * KK_ELOCKED instead of a dialog the prompt policy forbids.
 */
#define _POSIX_C_SOURCE 200809L

#include "kt_keychain.h"
#include "kt_secret_service.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/** Whether the `n` bytes at `p` are all zero. */
static int all_zero(const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != 0) return 0;
    return 1;
}

/** kk_unlock() with a copy of `password` in a buffer of the test's, which
 *  must come back wiped. */
static kk_status unlock_with(kk_keychain *kc, const char *collection, const char *password)
{
    char buffer[256];
    size_t n = strlen(password);
    memcpy(buffer, password, n);
    kk_status status = kk_unlock(kc, collection, buffer, n);
    CHECK(all_zero(buffer, n)); /* wiped, whatever the outcome */
    return status;
}

/** The servers that take a password over the bus (gnome-keyring's private
 *  interface): gnome-keyring, keychainkitd, and the fake as oo7-daemon. */
#define TAKES_PASSWORDS "gnome-keyring|keychainkitd|fake-oo7"

/** The name of the collection the default alias names there. */
static const char *login_name(void)
{
    return strcmp(kt_server(), "fake-oo7") == 0 ? "Login" : "login";
}

static const char *test_password(void)
{
    const char *password = getenv("KEYCHAINKIT_TEST_KEYRING_PASSWORD");
    return password != NULL ? password : "";
}

TEST_ONLY_ON_SERVER(KT_SECRET_SERVICE, TAKES_PASSWORDS, unlock_with_the_password_needs_no_dialog)
{
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    const char *svc = kt_service();
    CHECK_STATUS(kk_set(kc, svc, "a1", "v1", 2), KK_OK);

    CHECK_STATUS(kk_lock(kc, NULL), KK_OK);
    int locked = 0;
    CHECK(kt_ss_is_locked(&locked) == 0 && locked);
    char *value = KT_SENTINEL;
    CHECK_STATUS(kk_get(kc, svc, "a1", &value, NULL), KK_ELOCKED);

    CHECK_STATUS(unlock_with(kc, NULL, "not the password"), KK_EWRONGKEY);
    CHECK(strstr(kk_error_message(), "refused") != NULL);
    CHECK(strstr(kk_error_message(), "not the password") == NULL);
    CHECK(kt_ss_is_locked(&locked) == 0 && locked); /* still locked */

    CHECK_STATUS(unlock_with(kc, NULL, test_password()), KK_OK);
    CHECK(kt_ss_is_locked(&locked) == 0 && !locked);
    CHECK_VALUE(kc, svc, "a1", "v1", 2);
    /* Unlocked already: nothing to check, nothing refused. */
    CHECK_STATUS(unlock_with(kc, login_name(), "not the password"), KK_OK);

    /* Collections by alias, name and path; a missing one; bad arguments. */
    char path[128];
    snprintf(path, sizeof path, "/org/freedesktop/secrets/collection/%s", login_name());
    CHECK_STATUS(kk_lock(kc, login_name()), KK_OK);
    CHECK_STATUS(unlock_with(kc, "default", test_password()), KK_OK);
    CHECK_STATUS(kk_lock(kc, path), KK_OK);
    CHECK_STATUS(unlock_with(kc, path, test_password()), KK_OK);
    CHECK_STATUS(unlock_with(kc, "nosuch", test_password()), KK_ENOTFOUND);
    CHECK_STATUS(kk_lock(kc, "nosuch"), KK_ENOTFOUND);
    CHECK_STATUS(unlock_with(kc, "not a name!", test_password()), KK_EINVAL);
    CHECK_STATUS(unlock_with(kc, "", test_password()), KK_EINVAL);
    CHECK_STATUS(kk_unlock(kc, NULL, NULL, 3), KK_EINVAL);
    CHECK_STATUS(kk_unlock(NULL, NULL, NULL, 0), KK_EINVAL);
    CHECK_STATUS(kk_lock(NULL, NULL), KK_EINVAL);
    CHECK(kt_ss_is_locked(&locked) == 0 && !locked);
    CHECK_STATUS(kk_remove(kc, svc, "a1"), KK_OK);
    kk_close(kc);
}

/* The state an SSH login finds: the keyring loaded from disk locked. */
TEST_ONLY_ON_SERVER(KT_SECRET_SERVICE, TAKES_PASSWORDS, unlock_with_the_password_after_a_locked_start)
{
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    const char *svc = kt_service();
    CHECK_STATUS(kk_set(kc, svc, "a1", "v1", 2), KK_OK);
    REQUIRE(kt_ss_restart_locked() == 0);
    char *value = KT_SENTINEL;
    CHECK_STATUS(kk_get(kc, svc, "a1", &value, NULL), KK_ELOCKED);
    CHECK_STATUS(unlock_with(kc, NULL, "not the password"), KK_EWRONGKEY);
    CHECK_STATUS(unlock_with(kc, NULL, test_password()), KK_OK);
    CHECK_VALUE(kc, svc, "a1", "v1", 2);
    CHECK_STATUS(kk_remove(kc, svc, "a1"), KK_OK);
    kk_close(kc);
}

/* KWallet, KeePassXC and the fake take no password over the bus: with
 * prompts forbidden, KK_ELOCKED naming the ways out, never a dialog; the
 * password is wiped all the same. kk_lock() works everywhere. */
TEST_EXCEPT_ON_SERVER(KT_SECRET_SERVICE, TAKES_PASSWORDS, "it takes the password over the bus (tested above)",
                      unlock_without_a_password_interface_is_elocked_when_prompts_are_forbidden)
{
    kk_secret_service_options options = KK_SECRET_SERVICE_OPTIONS_INIT;
    options.prompts = KK_PROMPT_NEVER;
    kk_keychain *kc = NULL;
    REQUIRE(CHECK_STATUS(kk_open_secret_service_with(&options, &kc), KK_OK));
    CHECK_STATUS(kk_lock(kc, NULL), KK_OK);
    int locked = 0;
    CHECK(kt_ss_is_locked(&locked) == 0 && locked);
    CHECK_STATUS(unlock_with(kc, NULL, "whatever"), KK_ELOCKED);
    CHECK(strstr(kk_error_message(), "takes no password") != NULL);
    CHECK_STATUS(kk_unlock(kc, NULL, NULL, 0), KK_ELOCKED);
    CHECK(kt_ss_is_locked(&locked) == 0 && locked);
    kt_unlock_checked();
    CHECK_STATUS(unlock_with(kc, NULL, "whatever"), KK_OK); /* unlocked: nothing to do */
    kk_close(kc);
}

TEST_ON(KT_MEMORY | KT_KERNEL | KT_FILE, unlock_and_lock_are_for_the_secret_service)
{
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    CHECK_STATUS(unlock_with(kc, NULL, "pw"), KK_EINVAL);
    CHECK(strstr(kk_error_message(), "not a Secret Service handle") != NULL);
    CHECK_STATUS(kk_lock(kc, NULL), KK_EINVAL);
    kk_close(kc);
}
