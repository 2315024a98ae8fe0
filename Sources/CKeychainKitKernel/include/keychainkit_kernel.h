/* SPDX-License-Identifier: MIT */
/* The kernel key-management system calls the kernel keyring backend uses,
 * as plain functions: Swift cannot call the variadic syscall(2), and the
 * library does not depend on libkeyutils. Each returns what the system call
 * returns on success and -errno on failure (never sets errno for the
 * caller to read). Internal to libkeychainkit: not installed, not exported
 * (the linker version script exports kk_* only). */
#ifndef KEYCHAINKIT_KERNEL_H
#define KEYCHAINKIT_KERNEL_H

#include <stddef.h>
#include <stdint.h>

/* Special keyring IDs (linux/keyctl.h). */
#define KEYCHAINKIT_KEY_SPEC_PROCESS_KEYRING (-2)
#define KEYCHAINKIT_KEY_SPEC_SESSION_KEYRING (-3)
#define KEYCHAINKIT_KEY_SPEC_USER_KEYRING (-4)

/* The largest payload of a "user" key (linux/security/keys/user-type.c). */
#define KEYCHAINKIT_USER_KEY_MAX_PAYLOAD 32767
/* The longest key description the kernel accepts, without its NUL
 * (KEY_MAX_DESC_SIZE - 1). */
#define KEYCHAINKIT_KEY_MAX_DESCRIPTION 4095

/* add_key("user", description, payload, length, keyring): creates the key,
 * or updates the payload of the "user" key with that description linked in
 * `keyring`, atomically. Returns its serial. */
int32_t keychainkit_key_add_user(const char *description, const void *payload, size_t length, int32_t keyring);

/* KEYCTL_GET_PERSISTENT for the caller's own user, linked into `destination`. */
int32_t keychainkit_key_get_persistent(int32_t destination);

/* KEYCTL_GET_KEYRING_ID of a special keyring ID, never creating one. */
int32_t keychainkit_key_get_keyring_id(int32_t special);

/* KEYCTL_SEARCH for the "user" key `description` in `keyring` and the
 * keyrings nested in it; links the result nowhere. */
int32_t keychainkit_key_search_user(int32_t keyring, const char *description);

/* KEYCTL_READ: copies up to `length` bytes of the payload of `key` (a
 * keyring's: its keys' serials) to `buffer`; returns the payload's full
 * length, which may exceed `length`. */
long keychainkit_key_read(int32_t key, void *buffer, size_t length);

/* KEYCTL_DESCRIBE: "type;uid;gid;perm;description", NUL-terminated, into
 * `buffer`; returns the full length with the NUL, which may exceed `length`. */
long keychainkit_key_describe(int32_t key, char *buffer, size_t length);

/* KEYCTL_SETPERM. */
int keychainkit_key_set_permissions(int32_t key, uint32_t permissions);

/* KEYCTL_LINK of `key` into `keyring`. */
int keychainkit_key_link(int32_t key, int32_t keyring);

/* KEYCTL_UNLINK of `key` from `keyring`. */
int keychainkit_key_unlink(int32_t key, int32_t keyring);

/* Permission bits of KEYCTL_SETPERM (linux/keyctl.h) for the keys the
 * backend writes: everything for a possessor; view, read, write and search
 * for other processes of the owning user; nothing for group and others. */
#define KEYCHAINKIT_KEY_PERMISSIONS 0x3f0f0000u

/* Permission bits for keys in a session keyring: everything for a
 * possessor (the processes whose session keyring links the key), nothing
 * for anyone else, the same user's other sessions included. */
#define KEYCHAINKIT_KEY_PERMISSIONS_POSSESSOR 0x3f000000u

#endif
