/* SPDX-License-Identifier: MIT */
/* A program built against an installed KeychainKit with nothing but
 * `pkg-config --cflags --libs keychainkit`: stores, reads and removes a
 * secret in the in-memory keychain. Exits 0 when all of it works. */
#include <keychainkit.h>
#include <stdio.h>
#include <string.h>

int main(void) {
    if (kk_version_number() != KK_VERSION_NUMBER) {
        fprintf(stderr, "header %d, library %d\n", KK_VERSION_NUMBER, kk_version_number());
        return 1;
    }
    kk_keychain *kc = NULL;
    if (kk_open_memory(&kc) != KK_OK) return 2;
    if (kk_set(kc, "consumer", "token", "s3cret", 6) != KK_OK) return 3;
    char *value = NULL;
    size_t length = 0;
    if (kk_get(kc, "consumer", "token", &value, &length) != KK_OK) return 4;
    int same = length == 6 && memcmp(value, "s3cret", 6) == 0;
    kk_secret_free(value);
    if (!same) return 5;
    if (kk_remove(kc, "consumer", "token") != KK_OK) return 6;
    if (kk_get(kc, "consumer", "token", &value, NULL) != KK_ENOTFOUND || value != NULL) return 7;
    kk_close(kc);
    printf("consumer: ok with keychainkit %s\n", kk_version_string());
    return 0;
}
