/* SPDX-License-Identifier: MIT */
/* The key-management system calls, without libkeyutils. */
#define _GNU_SOURCE
#include <errno.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "keychainkit_kernel.h"

/* keyctl(2) operations (linux/keyctl.h). */
enum {
    KEYCTL_GET_KEYRING_ID = 0,
    KEYCTL_SETPERM = 5,
    KEYCTL_DESCRIBE = 6,
    KEYCTL_LINK = 8,
    KEYCTL_UNLINK = 9,
    KEYCTL_SEARCH = 10,
    KEYCTL_READ = 11,
    KEYCTL_GET_PERSISTENT = 22,
};

static long result(long value) {
    return value < 0 ? -errno : value;
}

int32_t keychainkit_key_add_user(const char *description, const void *payload, size_t length, int32_t keyring) {
    return (int32_t)result(syscall(SYS_add_key, "user", description, payload, length, keyring));
}

int32_t keychainkit_key_get_persistent(int32_t destination) {
    return (int32_t)result(syscall(SYS_keyctl, KEYCTL_GET_PERSISTENT, (uid_t)-1, destination));
}

int32_t keychainkit_key_get_keyring_id(int32_t special) {
    return (int32_t)result(syscall(SYS_keyctl, KEYCTL_GET_KEYRING_ID, special, 0));
}

int32_t keychainkit_key_search_user(int32_t keyring, const char *description) {
    return (int32_t)result(syscall(SYS_keyctl, KEYCTL_SEARCH, keyring, "user", description, 0));
}

long keychainkit_key_read(int32_t key, void *buffer, size_t length) {
    return result(syscall(SYS_keyctl, KEYCTL_READ, key, buffer, length));
}

long keychainkit_key_describe(int32_t key, char *buffer, size_t length) {
    return result(syscall(SYS_keyctl, KEYCTL_DESCRIBE, key, buffer, length));
}

int keychainkit_key_set_permissions(int32_t key, uint32_t permissions) {
    return (int)result(syscall(SYS_keyctl, KEYCTL_SETPERM, key, permissions));
}

int keychainkit_key_link(int32_t key, int32_t keyring) {
    return (int)result(syscall(SYS_keyctl, KEYCTL_LINK, key, keyring));
}

int keychainkit_key_unlink(int32_t key, int32_t keyring) {
    return (int)result(syscall(SYS_keyctl, KEYCTL_UNLINK, key, keyring));
}
