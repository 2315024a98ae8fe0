/* SPDX-License-Identifier: MIT */
/*
 * server_login.c — a password for an account on a server (an IMAP login):
 * store it, read it back, list the server's accounts, remove it. Stored as
 * libsecret's network passwords, so Seahorse and secret-tool see it too.
 *
 *     gcc -std=c11 server_login.c $(pkg-config --cflags --libs keychainkit)
 *     ./a.out memory            # a process-local keychain, for trying things
 *     ./a.out secret-service    # the user's keychain (gnome-keyring, KWallet...)
 *
 * Exits 0 when every step did what it should, 1 otherwise.
 */
#include <keychainkit.h>

#include <stdio.h>
#include <string.h>

/* Opens the keychain named on the command line. */
static kk_status open_keychain(const char *backend, kk_keychain **kc)
{
    if (strcmp(backend, "memory") == 0) return kk_open_memory(kc);
    return kk_open_secret_service(kc);
}

int main(int argc, char **argv)
{
    if (argc != 2 || (strcmp(argv[1], "memory") != 0 && strcmp(argv[1], "secret-service") != 0)) {
        fprintf(stderr, "usage: %s memory|secret-service\n", argv[0]);
        return 2;
    }
    kk_keychain *kc;
    kk_status st = open_keychain(argv[1], &kc);
    if (st != KK_OK) {
        fprintf(stderr, "open: %s: %s\n", kk_status_string(st), kk_error_message());
        return 1;
    }

    /* Start from KK_SERVER_LOGIN_INIT: fields a later version adds stay unset. */
    kk_server_login login = KK_SERVER_LOGIN_INIT;
    login.server = "imap.example.com";
    login.account = "alice";
    login.protocol = "imap";
    login.port = 993;

    int ok = 1;
    st = kk_server_login_set(kc, &login, "s3cret", 6);
    if (st != KK_OK) {
        fprintf(stderr, "store: %s\n", kk_error_message());
        ok = 0;
    }

    char *password = NULL;
    size_t len = 0;
    st = kk_server_login_get(kc, &login, &password, &len);
    if (st == KK_OK) {
        printf("alice's password on imap.example.com:993 has %zu bytes\n", len);
        ok = ok && len == 6 && memcmp(password, "s3cret", 6) == 0;
        kk_secret_free(password); /* wipes, then frees */
    } else {
        fprintf(stderr, "read: %s\n", kk_error_message());
        ok = 0;
    }

    /* A lookup is exact: without the port it is another login. */
    kk_server_login other_port = login;
    other_port.port = 0;
    st = kk_server_login_get(kc, &other_port, &password, NULL);
    printf("the same account without the port: %s\n", kk_status_string(st));
    ok = ok && st == KK_ENOTFOUND;

    char **accounts = NULL;
    size_t count = 0;
    st = kk_server_login_accounts(kc, "imap.example.com", &accounts, &count);
    if (st == KK_OK) {
        for (size_t i = 0; i < count; i++) printf("account on imap.example.com: %s\n", accounts[i]);
        ok = ok && count == 1 && strcmp(accounts[0], "alice") == 0;
        kk_list_free(accounts);
    } else {
        fprintf(stderr, "list: %s\n", kk_error_message());
        ok = 0;
    }

    st = kk_server_login_remove(kc, &login);
    if (st != KK_OK) {
        fprintf(stderr, "remove: %s\n", kk_error_message());
        ok = 0;
    }
    kk_close(kc);
    puts(ok ? "done" : "FAILED");
    return ok ? 0 : 1;
}
