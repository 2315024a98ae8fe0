/* SPDX-License-Identifier: MIT */
/* Account lists handed to C callers: one allocation holding the pointer
 * array and the strings it points to, so kk_list_free() is a single free. */
#include <stdlib.h>

#include "keychainkit_support.h"

char **keychainkit_list_alloc(size_t count, size_t text_bytes) {
    if (count > (SIZE_MAX - text_bytes) / sizeof(char *) - 1)
        return NULL;
    char **list = malloc((count + 1) * sizeof(char *) + text_bytes);
    if (list != NULL)
        list[count] = NULL;
    return list;
}

KK_API void kk_list_free(char **accounts) {
    free(accounts);
}
