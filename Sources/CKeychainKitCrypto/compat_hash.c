/* SPDX-License-Identifier: MIT */
/* gnome-keyring's hashed attribute values, on libgcrypt. See
 * include/keychainkit_crypto.h. */
#include "keychainkit_crypto.h"

#include <gcrypt.h>

int keychainkit_md5(const uint8_t *data, size_t length, uint8_t *out) {
    if ((data == NULL && length != 0) || out == NULL || !keychainkit_crypto_ready())
        return -1;
    /* MD5 is refused in FIPS mode: the caller then cannot compare. */
    if (gcry_md_test_algo(GCRY_MD_MD5) != 0)
        return -1;
    gcry_md_hash_buffer(GCRY_MD_MD5, out, data == NULL ? "" : (const void *)data, length);
    return 0;
}
