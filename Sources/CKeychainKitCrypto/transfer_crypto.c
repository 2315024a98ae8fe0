/* The Secret Service's dh-ietf1024-sha256-aes128-cbc-pkcs7 algorithm, on
 * OpenSSL's libcrypto. See include/keychainkit_crypto.h. */
#define _DEFAULT_SOURCE
#include "keychainkit_crypto.h"

#include <limits.h>
#include <string.h>

#include <openssl/bn.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/kdf.h>
#include <openssl/rand.h>

struct keychainkit_dh_keypair {
    BIGNUM *prime;
    BIGNUM *private_key;
    BIGNUM *public_key;
};

void keychainkit_wipe(void *p, size_t n) {
    if (p != NULL && n > 0)
        OPENSSL_cleanse(p, n);
}

void keychainkit_dh_keypair_free(keychainkit_dh_keypair *pair) {
    if (pair == NULL)
        return;
    BN_free(pair->prime);
    BN_clear_free(pair->private_key);
    BN_free(pair->public_key);
    OPENSSL_free(pair);
}

keychainkit_dh_keypair *keychainkit_dh_keypair_new(void) {
    keychainkit_dh_keypair *pair = OPENSSL_zalloc(sizeof *pair);
    BN_CTX *context = BN_CTX_secure_new();
    BIGNUM *generator = BN_new();
    int ok = pair != NULL && context != NULL && generator != NULL && BN_set_word(generator, 2) &&
             (pair->prime = BN_get_rfc2409_prime_1024(NULL)) != NULL &&
             (pair->private_key = BN_secure_new()) != NULL && (pair->public_key = BN_new()) != NULL &&
             /* A private exponent of the group's full size, as libsecret and
              * SecretStorage use. */
             BN_priv_rand_ex(pair->private_key, 8 * KEYCHAINKIT_DH_BYTES, BN_RAND_TOP_ANY, BN_RAND_BOTTOM_ANY, 0,
                             context) &&
             !BN_is_zero(pair->private_key);
    if (ok) {
        BN_set_flags(pair->private_key, BN_FLG_CONSTTIME);
        ok = BN_mod_exp_mont_consttime(pair->public_key, generator, pair->private_key, pair->prime, context, NULL);
    }
    BN_free(generator);
    BN_CTX_free(context);
    if (!ok) {
        keychainkit_dh_keypair_free(pair);
        return NULL;
    }
    return pair;
}

size_t keychainkit_dh_public_key(const keychainkit_dh_keypair *pair, uint8_t *out) {
    if (pair == NULL || BN_num_bytes(pair->public_key) > KEYCHAINKIT_DH_BYTES)
        return 0;
    return (size_t)BN_bn2bin(pair->public_key, out);
}

/* HKDF-SHA256 (RFC 5869) of `secret` with no salt and no info. */
static int hkdf_sha256(const uint8_t *secret, size_t length, uint8_t *key_out) {
    EVP_PKEY_CTX *context = EVP_PKEY_CTX_new_id(EVP_PKEY_HKDF, NULL);
    size_t key_length = KEYCHAINKIT_AES_KEY_BYTES;
    int ok = context != NULL && EVP_PKEY_derive_init(context) > 0 &&
             EVP_PKEY_CTX_set_hkdf_md(context, EVP_sha256()) > 0 &&
             EVP_PKEY_CTX_set1_hkdf_key(context, secret, (int)length) > 0 &&
             EVP_PKEY_derive(context, key_out, &key_length) > 0 && key_length == KEYCHAINKIT_AES_KEY_BYTES;
    EVP_PKEY_CTX_free(context);
    return ok ? 0 : -1;
}

int keychainkit_dh_derive_key(const keychainkit_dh_keypair *pair, const uint8_t *peer, size_t peer_length,
                              uint8_t *key_out) {
    if (pair == NULL || peer == NULL || peer_length == 0 || peer_length > INT_MAX || key_out == NULL)
        return -1;
    uint8_t shared_bytes[KEYCHAINKIT_DH_BYTES];
    BN_CTX *context = BN_CTX_secure_new();
    BIGNUM *peer_key = BN_bin2bn(peer, (int)peer_length, NULL);
    BIGNUM *limit = BN_dup(pair->prime);
    BIGNUM *shared = BN_secure_new();
    /* The peer's key must lie in (1, p - 1): 0, 1 and p - 1 give a known secret. */
    int ok = context != NULL && peer_key != NULL && limit != NULL && shared != NULL && BN_sub_word(limit, 1) &&
             BN_cmp(peer_key, BN_value_one()) > 0 && BN_cmp(peer_key, limit) < 0 &&
             BN_mod_exp_mont_consttime(shared, peer_key, pair->private_key, pair->prime, context, NULL) &&
             BN_bn2binpad(shared, shared_bytes, sizeof shared_bytes) == KEYCHAINKIT_DH_BYTES &&
             hkdf_sha256(shared_bytes, sizeof shared_bytes, key_out) == 0;
    OPENSSL_cleanse(shared_bytes, sizeof shared_bytes);
    BN_clear_free(shared);
    BN_free(limit);
    BN_free(peer_key);
    BN_CTX_free(context);
    if (!ok)
        OPENSSL_cleanse(key_out, KEYCHAINKIT_AES_KEY_BYTES);
    return ok ? 0 : -1;
}

size_t keychainkit_aes_encrypted_length(size_t length) {
    return (length / KEYCHAINKIT_AES_BLOCK_BYTES + 1) * KEYCHAINKIT_AES_BLOCK_BYTES;
}

/* Runs one whole AES-128-CBC encryption or decryption; returns the output
 * length or -1. */
static long aes_cbc(int encrypt, const uint8_t *key, const uint8_t *iv, const uint8_t *input, size_t length,
                    uint8_t *out) {
    if (length > INT_MAX - 2 * KEYCHAINKIT_AES_BLOCK_BYTES)
        return -1;
    EVP_CIPHER_CTX *context = EVP_CIPHER_CTX_new();
    int written = 0, final = 0;
    int ok = context != NULL && EVP_CipherInit_ex(context, EVP_aes_128_cbc(), NULL, key, iv, encrypt) &&
             EVP_CipherUpdate(context, out, &written, input, (int)length) &&
             EVP_CipherFinal_ex(context, out + written, &final);
    EVP_CIPHER_CTX_free(context); /* erases the key schedule */
    return ok ? (long)written + final : -1;
}

long keychainkit_aes_encrypt(const uint8_t *key, const uint8_t *plaintext, size_t length, uint8_t *iv_out,
                             uint8_t *out) {
    if (key == NULL || iv_out == NULL || out == NULL || (plaintext == NULL && length > 0))
        return -1;
    if (RAND_bytes(iv_out, KEYCHAINKIT_AES_BLOCK_BYTES) != 1)
        return -1;
    static const uint8_t empty[1];
    return aes_cbc(1, key, iv_out, plaintext != NULL ? plaintext : empty, length, out);
}

long keychainkit_aes_decrypt(const uint8_t *key, const uint8_t *iv, size_t iv_length, const uint8_t *ciphertext,
                             size_t length, uint8_t *out) {
    if (key == NULL || iv == NULL || iv_length != KEYCHAINKIT_AES_BLOCK_BYTES || ciphertext == NULL ||
        out == NULL || length == 0 || length % KEYCHAINKIT_AES_BLOCK_BYTES != 0)
        return -1;
    long result = aes_cbc(0, key, iv, ciphertext, length, out);
    if (result < 0)
        OPENSSL_cleanse(out, length + KEYCHAINKIT_AES_BLOCK_BYTES);
    return result;
}
