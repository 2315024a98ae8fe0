/* Internal helpers of libkeychainkit for its Swift exports. Not installed,
 * not exported (the linker version script exports kk_* only; these are
 * named keychainkit_*). */
#ifndef KEYCHAINKIT_SUPPORT_H
#define KEYCHAINKIT_SUPPORT_H


#include "keychainkit.h"

/* KK_MAX_VALUE_SIZE, as a value Swift can read. */
static const size_t keychainkit_max_value_size = KK_MAX_VALUE_SIZE;

/* Records `status` and `detail` (may be NULL) as the calling thread's last
 * failure, for kk_error_message(), and returns `status`. */
kk_status keychainkit_fail(kk_status status, const char *detail);

/* Allocates a secret buffer of `length` bytes plus a NUL terminator, to be
 * released with kk_secret_free(); NULL when out of memory. */
char *keychainkit_secret_alloc(size_t length);

/* Allocates a list for kk_list(): room for `count` string pointers and a
 * terminating NULL, followed by `text_bytes` bytes for the strings, in one
 * block released by kk_list_free(); NULL when out of memory. */
char **keychainkit_list_alloc(size_t count, size_t text_bytes);

#endif
