/* SPDX-License-Identifier: MIT */
/* The Secret Service's dh-ietf1024-sha256-aes128-cbc-pkcs7 algorithm, on
 * libgcrypt (which libsystemd already loads, and libsecret uses). See
 * include/keychainkit_crypto.h. */
#define _DEFAULT_SOURCE
#include "keychainkit_crypto.h"

#include <pthread.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include <gcrypt.h>

/* The 1024-bit MODP group of RFC 2409 section 6.2 (generator 2). */
static const char rfc2409_prime_1024[] =
    "FFFFFFFFFFFFFFFFC90FDAA22168C234C4C6628B80DC1CD1"
    "29024E088A67CC74020BBEA63B139B22514A08798E3404DD"
    "EF9519B3CD3A431B302B0A6DF25F14374FE1356D6D51C245"
    "E485B576625E7EC6F44C42E9A637ED6B0BFF5CB6F406B7ED"
    "EE386BFB5A899FA5AE9F24117C4B1FE649286651ECE65381"
    "FFFFFFFFFFFFFFFF";

#define SHA256_BYTES 32

/* Bits of a private exponent. The group's prime is a safe prime, for which
 * short exponents are as strong as full ones up to twice the group's
 * security strength (about 80 bits for 1024-bit MODP; RFC 3526 section 8,
 * NIST SP 800-56A): 256 bits is well past that, and makes each of the two
 * exponentiations four times cheaper than a 1024-bit exponent (measured
 * with libgcrypt 1.10: 0.35 against 1.3 ms). */
#define PRIVATE_EXPONENT_BITS 256

struct keychainkit_dh_keypair {
    gcry_mpi_t prime;
    gcry_mpi_t private_key;
    gcry_mpi_t public_key;
};

static pthread_once_t initialization = PTHREAD_ONCE_INIT;
static int initialized;

/* Initialises libgcrypt as libsystemd does, unless the application already
 * did: no secure-memory pool (whose absence libgcrypt would otherwise report
 * on stderr); our buffers are wiped explicitly instead. */
static void initialize(void) {
    if (!gcry_control(GCRYCTL_INITIALIZATION_FINISHED_P)) {
        if (gcry_check_version("1.8.0") == NULL)
            return;
        gcry_control(GCRYCTL_DISABLE_SECMEM, 0);
        gcry_control(GCRYCTL_INITIALIZATION_FINISHED, 0);
    }
    initialized = 1;
}

int keychainkit_crypto_ready(void) {
    pthread_once(&initialization, initialize);
    return initialized;
}

void keychainkit_wipe(void *p, size_t n) {
    if (p != NULL && n > 0)
        explicit_bzero(p, n);
}

void keychainkit_dh_keypair_free(keychainkit_dh_keypair *pair) {
    if (pair == NULL)
        return;
    gcry_mpi_release(pair->prime);
    gcry_mpi_release(pair->private_key); /* libgcrypt wipes an MPI's limbs when it frees them */
    gcry_mpi_release(pair->public_key);
    keychainkit_wipe(pair, sizeof *pair);
    free(pair);
}

/* Whether `key` takes all KEYCHAINKIT_DH_BYTES and begins with neither
 * 0x00 nor 0xFF. */
static int public_key_is_fit(gcry_mpi_t key) {
    uint8_t bytes[KEYCHAINKIT_DH_BYTES];
    size_t written = 0;
    return gcry_mpi_print(GCRYMPI_FMT_USG, bytes, sizeof bytes, &written, key) == 0 &&
           written == sizeof bytes && bytes[0] != 0xFF;
}

keychainkit_dh_keypair *keychainkit_dh_keypair_new(void) {
    if (!keychainkit_crypto_ready())
        return NULL;
    keychainkit_dh_keypair *pair = calloc(1, sizeof *pair);
    gcry_mpi_t generator = gcry_mpi_set_ui(NULL, 2);
    int ok = pair != NULL && generator != NULL &&
             gcry_mpi_scan(&pair->prime, GCRYMPI_FMT_HEX, rfc2409_prime_1024, 0, NULL) == 0 &&
             (pair->private_key = gcry_mpi_snew(PRIVATE_EXPONENT_BITS)) != NULL &&
             (pair->public_key = gcry_mpi_new(8 * KEYCHAINKIT_DH_BYTES)) != NULL;
    /* Drawn again while the public key is unfit (see the header); 64 draws
     * all unfit happen with probability (2/256)^64. */
    int fit = 0;
    for (int draw = 0; ok && !fit && draw < 64; draw++) {
        gcry_mpi_randomize(pair->private_key, PRIVATE_EXPONENT_BITS, GCRY_STRONG_RANDOM);
        ok = gcry_mpi_cmp_ui(pair->private_key, 0) != 0;
        if (ok) {
            gcry_mpi_powm(pair->public_key, generator, pair->private_key, pair->prime);
            fit = public_key_is_fit(pair->public_key);
        }
    }
    ok = ok && fit;
    gcry_mpi_release(generator);
    if (!ok) {
        keychainkit_dh_keypair_free(pair);
        return NULL;
    }
    return pair;
}

size_t keychainkit_dh_public_key(const keychainkit_dh_keypair *pair, uint8_t *out) {
    size_t written = 0;
    if (pair == NULL || out == NULL ||
        gcry_mpi_print(GCRYMPI_FMT_USG, out, KEYCHAINKIT_DH_BYTES, &written, pair->public_key) != 0)
        return 0;
    return written;
}

int keychainkit_hmac_sha256(const uint8_t *key, size_t key_length, const uint8_t *data, size_t length,
                            uint8_t *out) {
    gcry_md_hd_t hmac;
    if (key == NULL || out == NULL || (data == NULL && length > 0) || !keychainkit_crypto_ready())
        return -1;
    if (gcry_md_open(&hmac, GCRY_MD_SHA256, GCRY_MD_FLAG_HMAC | GCRY_MD_FLAG_SECURE) != 0)
        return -1;
    int ok = gcry_md_setkey(hmac, key, key_length) == 0;
    if (ok) {
        gcry_md_write(hmac, data, length);
        const unsigned char *digest = gcry_md_read(hmac, GCRY_MD_SHA256);
        ok = digest != NULL;
        if (ok)
            memcpy(out, digest, SHA256_BYTES);
    }
    gcry_md_close(hmac); /* erases the HMAC state */
    return ok ? 0 : -1;
}

/* HKDF-SHA256 (RFC 5869) of `secret` with no salt (a hash-length of zeros)
 * and no info, to KEYCHAINKIT_AES_KEY_BYTES, composed of libgcrypt's HMAC as
 * libsecret's egg-hkdf does. */
static int hkdf_sha256(const uint8_t *secret, size_t length, uint8_t *key_out) {
    static const uint8_t salt[SHA256_BYTES];
    static const uint8_t first_block[1] = {0x01};
    uint8_t pseudorandom_key[SHA256_BYTES], block[SHA256_BYTES];
    int ok = keychainkit_hmac_sha256(salt, sizeof salt, secret, length, pseudorandom_key) == 0 &&
             keychainkit_hmac_sha256(pseudorandom_key, sizeof pseudorandom_key, first_block, sizeof first_block, block) == 0;
    if (ok)
        memcpy(key_out, block, KEYCHAINKIT_AES_KEY_BYTES);
    keychainkit_wipe(pseudorandom_key, sizeof pseudorandom_key);
    keychainkit_wipe(block, sizeof block);
    return ok ? 0 : -1;
}

/* The derivation of both sides: `pad` a short shared secret with zeros
 * to the group's size (the server's choice), or call it ambiguous. */
static int derive_key(const keychainkit_dh_keypair *pair, const uint8_t *peer, size_t peer_length, uint8_t *key_out,
                      int pad) {
    if (pair == NULL || peer == NULL || peer_length == 0 || key_out == NULL)
        return -1;
    uint8_t shared_bytes[KEYCHAINKIT_DH_BYTES];
    size_t written = 0;
    gcry_mpi_t peer_key = NULL, limit = gcry_mpi_new(0), shared = gcry_mpi_snew(8 * KEYCHAINKIT_DH_BYTES);
    /* The peer's key must lie in (1, p - 1): 0, 1 and p - 1 give a known secret. */
    int ok = limit != NULL && shared != NULL &&
             gcry_mpi_scan(&peer_key, GCRYMPI_FMT_USG, peer, peer_length, NULL) == 0;
    if (ok) {
        gcry_mpi_sub_ui(limit, pair->prime, 1);
        ok = gcry_mpi_cmp_ui(peer_key, 1) > 0 && gcry_mpi_cmp(peer_key, limit) < 0;
    }
    if (ok) {
        gcry_mpi_powm(shared, peer_key, pair->private_key, pair->prime);
        /* Big-endian; fewer bytes than the group's size is ambiguous. */
        ok = gcry_mpi_print(GCRYMPI_FMT_USG, shared_bytes, sizeof shared_bytes, &written, shared) == 0 &&
             written > 0 && written <= sizeof shared_bytes;
    }
    if (ok && pad && written < sizeof shared_bytes) {
        memmove(shared_bytes + (sizeof shared_bytes - written), shared_bytes, written);
        memset(shared_bytes, 0, sizeof shared_bytes - written);
        written = sizeof shared_bytes;
    }
    int ambiguous = ok && written < sizeof shared_bytes;
    if (ok && !ambiguous)
        ok = hkdf_sha256(shared_bytes, sizeof shared_bytes, key_out) == 0;
    keychainkit_wipe(shared_bytes, sizeof shared_bytes);
    gcry_mpi_release(shared);
    gcry_mpi_release(limit);
    gcry_mpi_release(peer_key);
    if (!ok || ambiguous)
        keychainkit_wipe(key_out, KEYCHAINKIT_AES_KEY_BYTES);
    return !ok ? -1 : ambiguous ? KEYCHAINKIT_DH_AMBIGUOUS : 0;
}

int keychainkit_dh_derive_key(const keychainkit_dh_keypair *pair, const uint8_t *peer, size_t peer_length,
                              uint8_t *key_out) {
    return derive_key(pair, peer, peer_length, key_out, 0);
}

int keychainkit_dh_derive_server_key(const keychainkit_dh_keypair *pair, const uint8_t *peer, size_t peer_length,
                                     uint8_t *key_out) {
    return derive_key(pair, peer, peer_length, key_out, 1);
}

size_t keychainkit_aes_encrypted_length(size_t length) {
    return (length / KEYCHAINKIT_AES_BLOCK_BYTES + 1) * KEYCHAINKIT_AES_BLOCK_BYTES;
}

struct keychainkit_aes_cipher {
    gcry_cipher_hd_t handle;
};

keychainkit_aes_cipher *keychainkit_aes_cipher_new(const uint8_t *key) {
    if (key == NULL || !keychainkit_crypto_ready())
        return NULL;
    keychainkit_aes_cipher *cipher = malloc(sizeof *cipher);
    if (cipher == NULL)
        return NULL;
    if (gcry_cipher_open(&cipher->handle, GCRY_CIPHER_AES128, GCRY_CIPHER_MODE_CBC, GCRY_CIPHER_SECURE) != 0) {
        free(cipher);
        return NULL;
    }
    if (gcry_cipher_setkey(cipher->handle, key, KEYCHAINKIT_AES_KEY_BYTES) != 0) {
        keychainkit_aes_cipher_free(cipher);
        return NULL;
    }
    return cipher;
}

void keychainkit_aes_cipher_free(keychainkit_aes_cipher *cipher) {
    if (cipher == NULL)
        return;
    gcry_cipher_close(cipher->handle); /* erases the key schedule */
    free(cipher);
}

/* Runs AES-128-CBC over `length` bytes of `buffer` in place, from `iv`. */
static int cbc_in_place(keychainkit_aes_cipher *cipher, int encrypt, const uint8_t *iv, uint8_t *buffer,
                        size_t length) {
    return gcry_cipher_setiv(cipher->handle, iv, KEYCHAINKIT_AES_BLOCK_BYTES) == 0 &&
                   (encrypt ? gcry_cipher_encrypt(cipher->handle, buffer, length, NULL, 0)
                            : gcry_cipher_decrypt(cipher->handle, buffer, length, NULL, 0)) == 0
               ? 0
               : -1;
}

long keychainkit_aes_cipher_encrypt(keychainkit_aes_cipher *cipher, const uint8_t *plaintext, size_t length,
                                    uint8_t *iv_out, uint8_t *out) {
    if (cipher == NULL || iv_out == NULL || out == NULL || (plaintext == NULL && length > 0) ||
        length > (size_t)LONG_MAX - KEYCHAINKIT_AES_BLOCK_BYTES)
        return -1;
    size_t total = keychainkit_aes_encrypted_length(length);
    uint8_t padding = (uint8_t)(total - length); /* PKCS#7: 1 to 16 bytes, each the count */
    if (length > 0)
        memcpy(out, plaintext, length);
    memset(out + length, padding, padding);
    /* Unpredictable, never reused; libgcrypt's nonce generator, as libsecret uses for IVs. */
    gcry_create_nonce(iv_out, KEYCHAINKIT_AES_BLOCK_BYTES);
    if (cbc_in_place(cipher, 1, iv_out, out, total) != 0) {
        keychainkit_wipe(out, total);
        return -1;
    }
    return (long)total;
}

long keychainkit_aes_cipher_decrypt(keychainkit_aes_cipher *cipher, const uint8_t *iv, size_t iv_length,
                                    const uint8_t *ciphertext, size_t length, uint8_t *out) {
    if (cipher == NULL || iv == NULL || iv_length != KEYCHAINKIT_AES_BLOCK_BYTES || ciphertext == NULL ||
        out == NULL || length == 0 || length % KEYCHAINKIT_AES_BLOCK_BYTES != 0 || length > (size_t)LONG_MAX)
        return -1;
    memcpy(out, ciphertext, length);
    int ok = cbc_in_place(cipher, 0, iv, out, length) == 0;
    uint8_t padding = ok ? out[length - 1] : 0;
    ok = ok && padding >= 1 && padding <= KEYCHAINKIT_AES_BLOCK_BYTES;
    for (size_t i = 0; ok && i < padding; i++)
        ok = out[length - 1 - i] == padding;
    if (!ok) {
        keychainkit_wipe(out, length);
        return -1;
    }
    keychainkit_wipe(out + length - padding, padding);
    return (long)(length - padding);
}

long keychainkit_aes_encrypt(const uint8_t *key, const uint8_t *plaintext, size_t length, uint8_t *iv_out,
                             uint8_t *out) {
    keychainkit_aes_cipher *cipher = keychainkit_aes_cipher_new(key);
    long written = keychainkit_aes_cipher_encrypt(cipher, plaintext, length, iv_out, out);
    keychainkit_aes_cipher_free(cipher);
    return written;
}

long keychainkit_aes_decrypt(const uint8_t *key, const uint8_t *iv, size_t iv_length, const uint8_t *ciphertext,
                             size_t length, uint8_t *out) {
    keychainkit_aes_cipher *cipher = keychainkit_aes_cipher_new(key);
    long written = keychainkit_aes_cipher_decrypt(cipher, iv, iv_length, ciphertext, length, out);
    keychainkit_aes_cipher_free(cipher);
    return written;
}
