/* SPDX-License-Identifier: MIT */
/* The cryptography of the Secret Service's encrypted transfer session,
 * "dh-ietf1024-sha256-aes128-cbc-pkcs7": Diffie-Hellman over the 1024-bit
 * MODP group of RFC 2409 (generator 2), HKDF-SHA256 of the shared secret
 * (no salt, no info) to a 16-byte key, AES-128-CBC with PKCS#7 padding.
 *
 * Every primitive is libgcrypt's (already loaded by libsystemd, and the one
 * libsecret uses); this file only arranges them as the Secret Service
 * specification says (HKDF is composed of libgcrypt's HMAC, PKCS#7 padding
 * added and checked here). Internal to libkeychainkit: not
 * installed, not exported (the linker version script exports kk_* only).
 *
 * The encrypted file store (libsecret's file format) uses the same AES-128-CBC
 * with PKCS#7, plus PBKDF2-HMAC-SHA256 and HMAC-SHA256 (at the end). */
#ifndef KEYCHAINKIT_CRYPTO_H
#define KEYCHAINKIT_CRYPTO_H

#include <stddef.h>
#include <stdint.h>

/* Bytes of a public key or shared secret of the group. */
#define KEYCHAINKIT_DH_BYTES 128
/* Bytes of the AES-128 key and of a CBC initialisation vector. */
#define KEYCHAINKIT_AES_KEY_BYTES 16
#define KEYCHAINKIT_AES_BLOCK_BYTES 16
/* keychainkit_dh_derive_key(): a shared secret no two servers encode alike. */
#define KEYCHAINKIT_DH_AMBIGUOUS 1

/* A private/public key pair of the group; its private half is erased on free. */
typedef struct keychainkit_dh_keypair keychainkit_dh_keypair;

/* A new key pair from the system's random source; NULL on failure.
 *
 * Its public key is always KEYCHAINKIT_DH_BYTES long with a first byte
 * other than 0x00 and 0xFF: pairs whose key is not are drawn again (2 in
 * 256). KWallet (5.103, through QCA) refuses a shorter key, and reads a key
 * as a signed number, which it turns back into bytes wrongly when the first
 * byte is 0xFF; other servers read any key alike. */
keychainkit_dh_keypair *keychainkit_dh_keypair_new(void);

/* Erases and frees a key pair; NULL is accepted. */
void keychainkit_dh_keypair_free(keychainkit_dh_keypair *pair);

/* Writes the public key, big-endian, to `out` (KEYCHAINKIT_DH_BYTES of
 * room); returns its length (KEYCHAINKIT_DH_BYTES), 0 on failure. */
size_t keychainkit_dh_public_key(const keychainkit_dh_keypair *pair, uint8_t *out);

/* Derives the session's AES key from the peer's public key (big-endian,
 * any length): checks 1 < peer < p - 1, computes the shared secret and
 * applies HKDF-SHA256 to its KEYCHAINKIT_DH_BYTES big-endian bytes. Writes
 * KEYCHAINKIT_AES_KEY_BYTES to `key_out`; 0 on success, -1 on failure,
 * KEYCHAINKIT_DH_AMBIGUOUS (and no key) when the shared secret's first
 * byte is zero: servers disagree on its encoding then (gnome-keyring and
 * libsecret pad it, KWallet strips the zeros), so the caller opens another
 * session instead (1 in 256). Every intermediate buffer is erased. */
int keychainkit_dh_derive_key(const keychainkit_dh_keypair *pair, const uint8_t *peer, size_t peer_length,
                              uint8_t *key_out);

/* keychainkit_dh_derive_key() for a server (keychainkitd): a shared
 * secret shorter than the group's size is padded with zeros in front, as
 * gnome-keyring and libsecret encode it, never ambiguous. */
int keychainkit_dh_derive_server_key(const keychainkit_dh_keypair *pair, const uint8_t *peer, size_t peer_length,
                                     uint8_t *key_out);
/* The ciphertext length for `length` bytes of plaintext (PKCS#7 always
 * adds 1 to 16 bytes). */
size_t keychainkit_aes_encrypted_length(size_t length);

/* Encrypts `length` bytes with a fresh random IV, written to `iv_out`
 * (KEYCHAINKIT_AES_BLOCK_BYTES); `out` has keychainkit_aes_encrypted_length
 * bytes of room. Returns the ciphertext length, or -1 on failure. */
long keychainkit_aes_encrypt(const uint8_t *key, const uint8_t *plaintext, size_t length, uint8_t *iv_out,
                             uint8_t *out);

/* Decrypts and strips the padding; `out` has `length` +
 * KEYCHAINKIT_AES_BLOCK_BYTES bytes of room.
 * Returns the plaintext length, or -1 when the IV, the length or the padding
 * is wrong. On failure `out` is erased. */
long keychainkit_aes_decrypt(const uint8_t *key, const uint8_t *iv, size_t iv_length, const uint8_t *ciphertext,
                             size_t length, uint8_t *out);

/* An AES-128 key made ready once (libgcrypt's cipher handle, its key
 * schedule in libgcrypt's secure memory) for the many messages of one
 * session or file: each then costs no handle of its own (about 3.5 µs, and
 * libgcrypt's entropy poll, per handle). Not for two threads at once. */
typedef struct keychainkit_aes_cipher keychainkit_aes_cipher;

/* A cipher for the KEYCHAINKIT_AES_KEY_BYTES at `key`; NULL on failure. */
keychainkit_aes_cipher *keychainkit_aes_cipher_new(const uint8_t *key);

/* Erases the key schedule and frees the cipher; NULL is accepted. */
void keychainkit_aes_cipher_free(keychainkit_aes_cipher *cipher);

/* keychainkit_aes_encrypt() and keychainkit_aes_decrypt() with `cipher`'s
 * key (-1 for a NULL cipher). */
long keychainkit_aes_cipher_encrypt(keychainkit_aes_cipher *cipher, const uint8_t *plaintext, size_t length,
                                    uint8_t *iv_out, uint8_t *out);
long keychainkit_aes_cipher_decrypt(keychainkit_aes_cipher *cipher, const uint8_t *iv, size_t iv_length,
                                    const uint8_t *ciphertext, size_t length, uint8_t *out);

/* Overwrites n bytes at p with zeros in a way the compiler may not elide. */
void keychainkit_wipe(void *p, size_t n);

/* Initialises libgcrypt once (as libsystemd does, unless the application
 * did); 1 when it is usable, 0 when not. Every function here calls it. */
int keychainkit_crypto_ready(void);

/* Bytes of an HMAC-SHA256. */
#define KEYCHAINKIT_HMAC_BYTES 32

/* HMAC-SHA256 of `data` under `key` into `out` (KEYCHAINKIT_HMAC_BYTES);
 * 0 on success, -1 on failure. */
int keychainkit_hmac_sha256(const uint8_t *key, size_t key_length, const uint8_t *data, size_t length,
                            uint8_t *out);

/* The encrypted file store's key (libsecret's egg-keyring1): PBKDF2 with
 * HMAC-SHA256 of `password` over `salt`, `iterations` rounds, to
 * KEYCHAINKIT_AES_KEY_BYTES in `key_out`. 0 on success, -1 on failure
 * (key_out erased). */
int keychainkit_pbkdf2_sha256(const uint8_t *password, size_t password_length, const uint8_t *salt,
                              size_t salt_length, unsigned long iterations, uint8_t *key_out);

/* Fills `out` with `length` unpredictable bytes (libgcrypt's nonce
 * generator, as libsecret's salts); 0 on success, -1 on failure. */
int keychainkit_random_nonce(uint8_t *out, size_t length);

/* Whether the `length` bytes at a and b are equal, in time independent of
 * where they differ: 1 equal, 0 not. */
int keychainkit_equal_in_constant_time(const uint8_t *a, const uint8_t *b, size_t length);

/* Bytes of an MD5 digest. */
#define KEYCHAINKIT_MD5_BYTES 16

/* The MD5 digest of `data` into `out` (KEYCHAINKIT_MD5_BYTES): how
 * gnome-keyring shows a locked item's attribute values when it loaded the
 * keyring from disk without its password (gkr:compat:hashed:NAME, in hex).
 * Not for anything secret. 0 on success, -1 on failure (MD5 unavailable,
 * as in FIPS mode). */
int keychainkit_md5(const uint8_t *data, size_t length, uint8_t *out);

#endif
