/* SPDX-License-Identifier: MIT */
#include "keychainkit_memory.h"
#include "keychainkit_support.h"

KK_API void kk_secret_free(char *value) {
    keychainkit_secret_release(value);
}
