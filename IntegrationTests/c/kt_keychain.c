/* SPDX-License-Identifier: MIT */
/*
 * kt_keychain.c — KeychainKit helpers shared by the C tests.
 */
#include "kt_keychain.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

char kt_sentinel_byte;

const char *kt_service(void)
{
    static char service[200];
    snprintf(service, sizeof service, "kk-c-test.%s", kt_test_name());
    return service;
}

const char *kt_file_path(void)
{
    static char path[400];
    const char *directory = getenv("KT_FILE_DIRECTORY");
    snprintf(path, sizeof path, "%s/%s.keyring", directory ? directory : "/nonexistent", kt_test_name());
    return path;
}

kk_status kt_open_file(const char *path, const char *master, kk_keychain **out)
{
    kk_file_options options = KK_FILE_OPTIONS_INIT;
    options.path = path;
    options.master_source = KK_MASTER_SECRET;
    options.master = (const unsigned char *)master;
    options.master_len = strlen(master);
    return kk_open_file(&options, out);
}

/* A handle on the test's own keyring file. */
static kk_status open_test_file(kk_keychain **out)
{
    return kt_open_file(kt_file_path(), KT_FILE_MASTER, out);
}

kk_keychain *kt_open_at(const char *file, int line)
{
    kk_keychain *kc = NULL;
    kk_status status = kt_current_backend() == KT_MEMORY   ? kk_open_memory(&kc)
                       : kt_current_backend() == KT_KERNEL ? kk_open_kernel_keyring_in(KK_KERNEL_SESSION, &kc)
                       : kt_current_backend() == KT_FILE   ? open_test_file(&kc)
                                                           : kk_open_secret_service(&kc);
    if (!kt_check_status(status, KK_OK, file, line, "kt_open()")) return NULL;
    kt_check(kc != NULL, file, line, "kt_open() returned a handle");
    return kc;
}

kk_keychain *kt_open_other_at(const char *file, int line, kk_keychain *kc)
{
    kk_keychain *other = NULL;
    kk_status status = kt_current_backend() == KT_MEMORY   ? kk_open_memory_shared(kc, &other)
                       : kt_current_backend() == KT_KERNEL ? kk_open_kernel_keyring_in(KK_KERNEL_SESSION, &other)
                       : kt_current_backend() == KT_FILE   ? open_test_file(&other)
                                                           : kk_open_secret_service(&other);
    if (!kt_check_status(status, KK_OK, file, line, "kt_open_other()")) return NULL;
    kt_check(other != NULL, file, line, "kt_open_other() returned a handle");
    return other;
}

void kt_check_value_at(const char *file, int line, kk_keychain *kc, const char *service,
                       const char *account, const void *want, size_t len)
{
    char *value = KT_SENTINEL;
    size_t got_len = (size_t)-1;
    if (!kt_check_status(kk_get(kc, service, account, &value, &got_len), KK_OK, file, line,
                         "kk_get(kc, service, account, &value, &len)"))
        return;
    if (!kt_check(value != NULL && value != KT_SENTINEL, file, line, "kk_get set a value")) return;
    kt_check(got_len == len, file, line, "value length %zu, expected %zu", got_len, len);
    if (got_len == len) {
        kt_check(memcmp(value, want, len) == 0, file, line, "value bytes equal the stored ones");
        kt_check(value[len] == '\0', file, line, "value is NUL-terminated");
    }
    kk_secret_free(value);
}

void kt_check_absent_at(const char *file, int line, kk_keychain *kc, const char *service,
                        const char *account)
{
    char *value = KT_SENTINEL;
    size_t len = 12345;
    int absent = kt_check_status(kk_get(kc, service, account, &value, &len), KK_ENOTFOUND, file,
                                 line, "kk_get(kc, service, account, &value, &len)");
    kt_check(value == NULL, file, line, "kk_get set *out_value to NULL on failure");
    kt_check(len == 12345, file, line, "kk_get left *out_len alone on failure (got %zu)", len);
    if (!absent && value != NULL && value != KT_SENTINEL) kk_secret_free(value);
}
