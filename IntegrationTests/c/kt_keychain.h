/* SPDX-License-Identifier: MIT */
/*
 * kt_keychain.h — KeychainKit helpers shared by the C tests.
 */
#ifndef KT_KEYCHAIN_H
#define KT_KEYCHAIN_H

#include "kk_test.h"

/** Opens a handle on the runner's backend, checking the status; NULL when
 *  that failed (REQUIRE it). */
#define kt_open() kt_open_at(__FILE__, __LINE__)

/** Opens another handle on the items of `kc`: kk_open_memory_shared() on
 *  the memory backend, a second kernel keyring handle on the same keyring
 *  on the kernel backend, a second Secret Service handle otherwise; NULL when
 *  that failed (REQUIRE it). */
#define kt_open_other(kc) kt_open_other_at(__FILE__, __LINE__, (kc))
kk_keychain *kt_open_other_at(const char *file, int line, kk_keychain *kc);

/** A service name unique to the running test ("kk-c-test.<test>"), so
 *  tests never see each other's items in the Secret Service. */
const char *kt_service(void);

/** Checks that kk_get(kc, service, account) returns KK_OK and exactly the
 *  `len` bytes at `want`, NUL-terminated, and frees the value. */
#define CHECK_VALUE(kc, service, account, want, len) \
    kt_check_value_at(__FILE__, __LINE__, (kc), (service), (account), (want), (len))

/** Checks that kk_get(kc, service, account) returns KK_ENOTFOUND and sets
 *  the value to NULL. */
#define CHECK_ABSENT(kc, service, account) \
    kt_check_absent_at(__FILE__, __LINE__, (kc), (service), (account))

/** A pointer that is not NULL and not a library allocation, to see that
 *  out-parameters are written (or left alone). */
extern char kt_sentinel_byte;
#define KT_SENTINEL (&kt_sentinel_byte)

kk_keychain *kt_open_at(const char *file, int line);

/** The master secret of the file backend's test handles. */
#define KT_FILE_MASTER "kt-master-secret"

/** The running test's own keyring file (in the runner's private directory):
 *  what kt_open() opens on the file backend. Static storage. */
const char *kt_file_path(void);

/** kk_open_file() of `path` with the secret `master` (KK_MASTER_SECRET). */
kk_status kt_open_file(const char *path, const char *master, kk_keychain **out);
void kt_check_value_at(const char *file, int line, kk_keychain *kc, const char *service,
                       const char *account, const void *want, size_t len);
void kt_check_absent_at(const char *file, int line, kk_keychain *kc, const char *service,
                        const char *account);

#endif /* KT_KEYCHAIN_H */
