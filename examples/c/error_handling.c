/* SPDX-License-Identifier: MIT */
/*
 * error_handling.c — tell "absent" from "locked" from "no keychain at all".
 *
 *     gcc -std=c11 error_handling.c $(pkg-config --cflags --libs keychainkit)
 *     ./a.out memory|secret-service
 *
 * Every kk_ function returns a kk_status: KK_OK (0) or a negative error.
 * kk_status_string() names a status; kk_error_message() gives the calling
 * thread's last failure in detail (e.g. the D-Bus error). Both return static
 * or library-owned text: never free it.
 *
 * Exits 0 when each situation produced the status it should, 1 otherwise.
 */
#define _POSIX_C_SOURCE 200809L /* setenv */

#include <keychainkit.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* How an application reads a secret and reacts to each outcome. Returns
 * the status so the demo can check it. */
static kk_status read_token(kk_keychain *kc, const char *service, const char *account)
{
    char *value = NULL;
    size_t len = 0;
    kk_status st = kk_get(kc, service, account, &value, &len);
    switch (st) {
    case KK_OK:
        printf("  found a %zu-byte token\n", len);
        kk_secret_free(value);
        break;
    case KK_ENOTFOUND:
        /* Really absent: e.g. ask the user to log in, then kk_set(). */
        printf("  %s: no token stored yet; would ask the user to log in\n", kk_status_string(st));
        break;
    case KK_ELOCKED:
        /* The item may well exist! Never treat this as absent (do not
         * overwrite it); retry after the user unlocks the keychain. */
        printf("  %s: keychain locked; would retry after unlock (%s)\n", kk_status_string(st),
               kk_error_message());
        break;
    case KK_EUNAVAILABLE:
        /* No session bus or no Secret Service: e.g. over SSH, in a
         * container. Fall back to asking each time, or to a config file. */
        printf("  %s: no keychain on this system; would fall back (%s)\n", kk_status_string(st),
               kk_error_message());
        break;
    default:
        printf("  unexpected %s: %s\n", kk_status_string(st), kk_error_message());
        break;
    }
    return st;
}

int main(int argc, char **argv)
{
    if (argc != 2 || (strcmp(argv[1], "memory") != 0 && strcmp(argv[1], "secret-service") != 0)) {
        fprintf(stderr, "usage: %s memory|secret-service\n", argv[0]);
        return 2;
    }
    int ok = 1;
    kk_keychain *kc;
    kk_status st = strcmp(argv[1], "memory") == 0 ? kk_open_memory(&kc) : kk_open_secret_service(&kc);
    if (st != KK_OK) {
        fprintf(stderr, "open: %s: %s\n", kk_status_string(st), kk_error_message());
        return 1;
    }

    printf("1. reading a key that was never stored:\n");
    ok &= read_token(kc, "keychainkit-example", "nobody") == KK_ENOTFOUND;

    printf("2. a bad argument (empty service):\n");
    st = kk_set(kc, "", "token", "x", 1);
    printf("  %s: %s\n", kk_status_string(st), kk_error_message());
    ok &= st == KK_EINVAL;

    printf("3. a locked keychain gives KK_ELOCKED (%d) and \"%s\"; it cannot be\n"
           "   shown without locking yours, see read_token() for the handling.\n",
           KK_ELOCKED, kk_status_string(KK_ELOCKED));
    kk_close(kc);

    printf("4. no session bus (simulated with a bus address that does not exist):\n");
    /* The Secret Service handle connects on its first operation, reading
     * DBUS_SESSION_BUS_ADDRESS then; it fails at once, never hangs. */
    setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent/bus", 1);
    st = kk_open_secret_service(&kc);
    ok &= st == KK_OK; /* opening never connects, so it succeeds */
    if (st == KK_OK) {
        ok &= read_token(kc, "keychainkit-example", "nobody") == KK_EUNAVAILABLE;
        kk_close(kc);
    }

    printf("%s\n", ok ? "ok" : "FAILED");
    return ok ? 0 : 1;
}
