/* SPDX-License-Identifier: MIT */
/* The library's version, as compiled. */
#include "keychainkit_support.h"

#define KK_STRINGIFY2(x) #x
#define KK_STRINGIFY(x) KK_STRINGIFY2(x)

KK_API int kk_version_number(void) {
    return KK_VERSION_NUMBER;
}

KK_API const char *kk_version_string(void) {
    return KK_STRINGIFY(KK_VERSION_MAJOR) "." KK_STRINGIFY(KK_VERSION_MINOR) "." KK_STRINGIFY(KK_VERSION_PATCH);
}
