/* SPDX-License-Identifier: MIT */
/* The thread-local kk_error_message (kk_status_string, whose words are the
 * Swift core's, is in Sources/KeychainKitStatus). */
#include <stdio.h>

#include "keychainkit_support.h"

static _Thread_local char last_message[512];

KK_API const char *kk_error_message(void) {
    return last_message;
}

kk_status keychainkit_fail(kk_status status, const char *detail) {
    if (detail != NULL && detail[0] != '\0')
        snprintf(last_message, sizeof last_message, "%s: %s", kk_status_string(status), detail);
    else
        snprintf(last_message, sizeof last_message, "%s", kk_status_string(status));
    return status;
}
