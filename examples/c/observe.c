/* SPDX-License-Identifier: MIT */
/*
 * observe.c — be told about every change attempt on one key.
 *
 *     gcc -std=c11 observe.c $(pkg-config --cflags --libs keychainkit)
 *     ./a.out memory|secret-service
 *
 * An observer is called after each kk_set()/kk_remove() of its key through
 * the handle, on the calling thread, before that call returns, with the
 * attempt's status: failed attempts and unchanged values notify too.
 * Exits 0 when the observer saw exactly what it should, 1 otherwise.
 */
#include <keychainkit.h>

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* What the observer has seen; passed to it as userdata. */
struct seen {
    int sets, removes, failures;
    int destroyed;
};

/* The callback. `service` and `account` are valid only during the call.
 * No library lock is held: calling kk_ functions from here is allowed. */
static void on_change(kk_event event, const char *service, const char *account,
                      kk_status status, void *userdata)
{
    struct seen *seen = userdata;
    printf("  observer: %s on (\"%s\", \"%s\"): %s\n",
           event == KK_EVENT_SET ? "set" : "remove", service, account, kk_status_string(status));
    if (event == KK_EVENT_SET) seen->sets++;
    else seen->removes++;
    if (status != KK_OK) seen->failures++;
}

/* Called exactly once, when the observer is removed (kk_unobserve or
 * kk_close): the place to free userdata. */
static void on_destroy(void *userdata)
{
    struct seen *seen = userdata;
    seen->destroyed++;
    printf("  observer: destroyed\n");
}

int main(int argc, char **argv)
{
    if (argc != 2 || (strcmp(argv[1], "memory") != 0 && strcmp(argv[1], "secret-service") != 0)) {
        fprintf(stderr, "usage: %s memory|secret-service\n", argv[0]);
        return 2;
    }
    kk_keychain *kc;
    kk_status st = strcmp(argv[1], "memory") == 0 ? kk_open_memory(&kc) : kk_open_secret_service(&kc);
    if (st != KK_OK) {
        fprintf(stderr, "open: %s: %s\n", kk_status_string(st), kk_error_message());
        return 1;
    }

    const char *service = "keychainkit-example", *account = "observed";
    struct seen seen = {0};
    uint64_t token; /* never 0 */
    st = kk_observe(kc, service, account, on_change, &seen, on_destroy, &token);
    printf("kk_observe: %s\n", kk_status_string(st));
    if (st != KK_OK) {
        kk_close(kc);
        return 1;
    }

    printf("kk_set \"v1\"\n");
    int ok = kk_set(kc, service, account, "v1", 2) == KK_OK;
    printf("kk_set \"v1\" again (an equal value still notifies)\n");
    ok = ok && kk_set(kc, service, account, "v1", 2) == KK_OK;
    printf("kk_set on another key (not observed: no call)\n");
    ok = ok && kk_set(kc, service, "someone-else", "x", 1) == KK_OK;
    printf("kk_remove\n");
    ok = ok && kk_remove(kc, service, account) == KK_OK;
    ok = ok && kk_remove(kc, service, "someone-else") == KK_OK;

    /* After kk_unobserve the callback is never called again, and destroy
     * has run. */
    st = kk_unobserve(kc, token);
    printf("kk_unobserve: %s\n", kk_status_string(st));
    ok = ok && st == KK_OK;
    printf("kk_set after kk_unobserve (no call)\n");
    ok = ok && kk_set(kc, service, account, "v2", 2) == KK_OK;
    ok = ok && kk_remove(kc, service, account) == KK_OK;
    kk_close(kc);

    ok = ok && seen.sets == 2 && seen.removes == 1 && seen.failures == 0 && seen.destroyed == 1;
    printf("seen: %d sets, %d removes, %d failures, destroyed %d time(s): %s\n", seen.sets,
           seen.removes, seen.failures, seen.destroyed, ok ? "ok" : "FAILED");
    return ok ? 0 : 1;
}
