/* SPDX-License-Identifier: MIT */
/*
 * store_read_remove.c — store a secret, read it back, remove it.
 *
 *     gcc -std=c11 store_read_remove.c $(pkg-config --cflags --libs keychainkit)
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
        /* kk_error_message() explains the last failure of this thread. */
        fprintf(stderr, "open: %s: %s\n", kk_status_string(st), kk_error_message());
        return 1;
    }
    printf("opened the %s keychain (KeychainKit %s)\n", argv[1], kk_version_string());

    /* A key is (service, account). Pass NULL as the service to use the
     * program's name. */
    const char *service = "keychainkit-example";
    const char *account = "alice@example.com";
    const char *token = "s3cret-token";
    int ok = 1;

    /* 1. Store: creates the item, or replaces its value. Values are bytes
     *    with an explicit length, so they may contain NUL. */
    st = kk_set(kc, service, account, token, strlen(token));
    printf("kk_set(\"%s\", \"%s\", <%zu bytes>): %s\n", service, account, strlen(token),
           kk_status_string(st));
    ok = ok && st == KK_OK;

    /* 2. Read: the library allocates a NUL-terminated copy, which only
     *    kk_secret_free() may release (it wipes the bytes first). */
    char *value = NULL;
    size_t len = 0;
    st = kk_get(kc, service, account, &value, &len);
    printf("kk_get: %s", kk_status_string(st));
    if (st == KK_OK) {
        int same = len == strlen(token) && memcmp(value, token, len) == 0;
        /* Never print a secret; its length will do here. */
        printf(", %zu bytes, %s\n", len, same ? "the value stored" : "NOT the value stored");
        ok = ok && same;
        kk_secret_free(value);
    } else {
        printf(" (%s)\n", kk_error_message());
        ok = 0;
    }

    /* 3. Remove: removing an absent item is not an error. */
    st = kk_remove(kc, service, account);
    printf("kk_remove: %s\n", kk_status_string(st));
    ok = ok && st == KK_OK;

    /* 4. Read again: now absent, and the value pointer is NULL. */
    st = kk_get(kc, service, account, &value, &len);
    printf("kk_get after remove: %s\n", kk_status_string(st));
    ok = ok && st == KK_ENOTFOUND && value == NULL;

    kk_close(kc);
    printf("%s\n", ok ? "ok" : "FAILED");
    return ok ? 0 : 1;
}
