/* kk_status_string and the thread-local kk_error_message. */
#include <stdio.h>

#include "keychainkit_support.h"

static _Thread_local char last_message[512];

KK_API const char *kk_status_string(kk_status status) {
    switch (status) {
    case KK_OK: return "success";
    case KK_ENOTFOUND: return "no item for the key";
    case KK_EDUPLICATE: return "an item already exists for the key";
    case KK_ELOCKED: return "the keychain is locked";
    case KK_EDENIED: return "access to the keychain was denied";
    case KK_EUNAVAILABLE: return "the keychain is unavailable";
    case KK_ECANCELED: return "the user canceled the operation";
    case KK_EINVAL: return "invalid argument";
    case KK_ENOMEM: return "out of memory";
    case KK_EUNKNOWN: return "keychain error";
    }
    return "unknown status";
}

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
