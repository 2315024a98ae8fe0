/* SPDX-License-Identifier: MIT */
/*
 * Server logins: kk_server_login_get/set/remove/accounts, exact matching,
 * libsecret's NetworkPassword items, argument checks.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <keychainkit.h>

#include "kk_test.h"
#include "kt_keychain.h"

/** A login on a host unique to the running test. */
static kk_server_login login_for(const char *account, const char *protocol, unsigned int port)
{
    static char server[200];
    snprintf(server, sizeof server, "%s.example", kt_service());
    kk_server_login login = KK_SERVER_LOGIN_INIT;
    login.server = server;
    login.account = account;
    login.protocol = protocol;
    login.port = port;
    return login;
}

/** Checks that `login` holds exactly the string `want`. */
static void check_password(kk_keychain *kc, const kk_server_login *login, const char *want)
{
    char *value = KT_SENTINEL;
    size_t len = 0;
    if (CHECK_STATUS(kk_server_login_get(kc, login, &value, &len), KK_OK)) {
        CHECK_EQ(len, strlen(want));
        CHECK_STR_EQ(value, want);
        kk_secret_free(value);
    }
}

TEST_ON(KT_ATTRIBUTE_ITEMS, server_login_round_trips_by_exact_login)
{
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    kk_server_login imap = login_for("alice", "imap", 993);
    kk_server_login https = login_for("alice", "https", 0);
    CHECK_STATUS(kk_server_login_set(kc, &imap, "imap-pw", 7), KK_OK);
    CHECK_STATUS(kk_server_login_set(kc, &https, "web-pw", 6), KK_OK);
    check_password(kc, &imap, "imap-pw");
    check_password(kc, &https, "web-pw");

    /* Exact: a field left out matches only items without it. */
    kk_server_login bare = login_for("alice", NULL, 0);
    char *value = KT_SENTINEL;
    CHECK_STATUS(kk_server_login_get(kc, &bare, &value, NULL), KK_ENOTFOUND);
    CHECK(value == NULL);
    kk_server_login no_port = login_for("alice", "imap", 0);
    CHECK_STATUS(kk_server_login_get(kc, &no_port, &value, NULL), KK_ENOTFOUND);

    CHECK_STATUS(kk_server_login_set(kc, &imap, "imap\0new", 8), KK_OK);
    char *bytes = NULL;
    size_t len = 0;
    if (CHECK_STATUS(kk_server_login_get(kc, &imap, &bytes, &len), KK_OK)) {
        CHECK_EQ(len, 8);
        CHECK(memcmp(bytes, "imap\0new", 8) == 0);
        kk_secret_free(bytes);
    }
    /* The (service, account) items are apart. */
    CHECK_ABSENT(kc, imap.server, "alice");

    CHECK_STATUS(kk_server_login_remove(kc, &imap), KK_OK);
    CHECK_STATUS(kk_server_login_remove(kc, &imap), KK_OK); /* absent: fine */
    CHECK_STATUS(kk_server_login_get(kc, &imap, &value, NULL), KK_ENOTFOUND);
    CHECK_STATUS(kk_server_login_remove(kc, &https), KK_OK);
    kk_close(kc);
}

TEST_ON(KT_ATTRIBUTE_ITEMS, server_login_accounts_of_a_host)
{
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    kk_server_login bob = login_for("bob", "https", 0);
    kk_server_login alice = login_for("alice", "smb", 445);
    kk_server_login alice_web = login_for("alice", "https", 8443);
    CHECK_STATUS(kk_server_login_set(kc, &bob, "b", 1), KK_OK);
    CHECK_STATUS(kk_server_login_set(kc, &alice, "a", 1), KK_OK);
    CHECK_STATUS(kk_server_login_set(kc, &alice_web, "a", 1), KK_OK);
    char **accounts = (char **)KT_SENTINEL;
    size_t n = 99;
    if (CHECK_STATUS(kk_server_login_accounts(kc, bob.server, &accounts, &n), KK_OK)) {
        CHECK_EQ(n, 2);
        CHECK_STR_EQ(accounts[0], "alice");
        CHECK_STR_EQ(accounts[1], "bob");
        CHECK(accounts[2] == NULL);
        kk_list_free(accounts);
    }
    if (CHECK_STATUS(kk_server_login_accounts(kc, "nobody.example", &accounts, &n), KK_OK)) {
        CHECK_EQ(n, 0);
        CHECK(accounts[0] == NULL);
        kk_list_free(accounts);
    }
    CHECK_STATUS(kk_server_login_remove(kc, &bob), KK_OK);
    CHECK_STATUS(kk_server_login_remove(kc, &alice), KK_OK);
    CHECK_STATUS(kk_server_login_remove(kc, &alice_web), KK_OK);
    kk_close(kc);
}

/** `secret-tool lookup` of the attributes in `args` (a fixed string): what
 *  any libsecret client finds; its output into out. Returns its exit status. */
static int secret_tool_lookup(const char *args, char *out, size_t size)
{
    char command[512];
    snprintf(command, sizeof command, "secret-tool lookup %s 2>/dev/null", args);
    FILE *pipe = popen(command, "r");
    if (pipe == NULL) return -1;
    size_t got = fread(out, 1, size - 1, pipe);
    out[got] = '\0';
    return pclose(pipe);
}

TEST_ON(KT_SECRET_SERVICE, server_logins_are_libsecrets_network_passwords)
{
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    kk_server_login login = login_for("carol", "ftp", 2121);
    login.path = "pub";
    login.domain = "WORKGROUP";
    login.authtype = "basic";
    CHECK_STATUS(kk_server_login_set(kc, &login, "ftp-pw", 6), KK_OK);
    char args[400], out[64];
    snprintf(args, sizeof args,
             "xdg:schema org.gnome.keyring.NetworkPassword server %s user carol protocol ftp port 2121 "
             "object pub domain WORKGROUP authtype basic",
             login.server);
    CHECK_EQ(secret_tool_lookup(args, out, sizeof out), 0);
    CHECK_STR_EQ(out, "ftp-pw");
    CHECK_STATUS(kk_server_login_remove(kc, &login), KK_OK);
    kk_close(kc);
}

TEST(server_login_arguments_are_checked)
{
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    int supported = kt_current_backend() != KT_KERNEL;
    kk_server_login login = login_for("dave", NULL, 0);
    char *value = KT_SENTINEL;
    char **accounts = (char **)KT_SENTINEL;
    CHECK_STATUS(kk_server_login_get(NULL, &login, &value, NULL), KK_EINVAL);
    CHECK(value == NULL);
    CHECK_STATUS(kk_server_login_set(kc, NULL, "x", 1), KK_EINVAL);
    CHECK_STATUS(kk_server_login_remove(kc, NULL), KK_EINVAL);
    CHECK_STATUS(kk_server_login_accounts(kc, NULL, &accounts, NULL), KK_EINVAL);
    CHECK(accounts == NULL);
    if (supported) {
        CHECK_STATUS(kk_server_login_get(kc, &login, NULL, NULL), KK_EINVAL);
        CHECK_STATUS(kk_server_login_set(kc, &login, NULL, 1), KK_EINVAL);
        CHECK_STATUS(kk_server_login_accounts(kc, "", &accounts, NULL), KK_EINVAL);
        kk_server_login bad = login;
        bad.version = 0;
        CHECK_STATUS(kk_server_login_set(kc, &bad, "x", 1), KK_EINVAL);
        CHECK(strstr(kk_error_message(), "version") != NULL);
        bad = login;
        bad.server = "";
        CHECK_STATUS(kk_server_login_set(kc, &bad, "x", 1), KK_EINVAL);
        bad = login;
        bad.account = NULL;
        CHECK_STATUS(kk_server_login_set(kc, &bad, "x", 1), KK_EINVAL);
        bad = login;
        bad.port = 65536;
        CHECK_STATUS(kk_server_login_set(kc, &bad, "x", 1), KK_EINVAL);
        bad = login;
        bad.protocol = "\xff";
        CHECK_STATUS(kk_server_login_set(kc, &bad, "x", 1), KK_EINVAL);
        CHECK_STATUS(kk_server_login_get(kc, &login, &value, NULL), KK_ENOTFOUND); /* nothing stored */
    } else {
        CHECK_STATUS(kk_server_login_set(kc, &login, "x", 1), KK_EINVAL);
        CHECK(strstr(kk_error_message(), "kernel") != NULL);
    }
    kk_close(kc);
}
