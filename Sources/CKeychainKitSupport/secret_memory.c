/* Secret buffers handed to C callers: a hidden header keeps the size, so
 * that kk_secret_free() can wipe the whole allocation before freeing it. */
#define _DEFAULT_SOURCE
#include <stdlib.h>
#include <string.h>

#include "keychainkit_support.h"

typedef union {
    size_t size;
    max_align_t align;
} secret_header;

char *keychainkit_secret_alloc(size_t length) {
    if (length > SIZE_MAX - sizeof(secret_header) - 1)
        return NULL;
    size_t size = sizeof(secret_header) + length + 1;
    secret_header *header = malloc(size);
    if (header == NULL)
        return NULL;
    header->size = size;
    char *value = (char *)(header + 1);
    value[length] = '\0';
    return value;
}

KK_API void kk_secret_free(char *value) {
    if (value == NULL)
        return;
    secret_header *header = (secret_header *)value - 1;
    explicit_bzero(header, header->size);
    free(header);
}
