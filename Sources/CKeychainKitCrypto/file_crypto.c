/* SPDX-License-Identifier: MIT */
/* The encrypted file store's primitives (libsecret's egg-keyring1), on
 * libgcrypt. See include/keychainkit_crypto.h. */
#include "keychainkit_crypto.h"

#include <gcrypt.h>

int keychainkit_pbkdf2_sha256(const uint8_t *password, size_t password_length, const uint8_t *salt,
                              size_t salt_length, unsigned long iterations, uint8_t *key_out) {
    if (password == NULL || password_length == 0 || salt == NULL || salt_length == 0 || iterations == 0 ||
        key_out == NULL || !keychainkit_crypto_ready())
        return -1;
    if (gcry_kdf_derive(password, password_length, GCRY_KDF_PBKDF2, GCRY_MD_SHA256, salt, salt_length, iterations,
                        KEYCHAINKIT_AES_KEY_BYTES, key_out) != 0) {
        keychainkit_wipe(key_out, KEYCHAINKIT_AES_KEY_BYTES);
        return -1;
    }
    return 0;
}

int keychainkit_random_nonce(uint8_t *out, size_t length) {
    if (out == NULL || !keychainkit_crypto_ready())
        return -1;
    gcry_create_nonce(out, length);
    return 0;
}

int keychainkit_equal_in_constant_time(const uint8_t *a, const uint8_t *b, size_t length) {
    uint8_t difference = 0;
    for (size_t i = 0; i < length; i++)
        difference |= a[i] ^ b[i];
    return difference == 0;
}
