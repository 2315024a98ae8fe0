/* SPDX-License-Identifier: MIT */
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

/* Keeps the tool's secrets, which pass through ordinary heap memory, out of
 * core files. With `undumpable`, makes the process non-dumpable
 * (PR_SET_DUMPABLE 0, reset by execve()): no core even for a core_pattern
 * pipe, no ptrace by other processes of the user, and its /proc/PID files
 * hidden from them. Without, lowers the core file limit (RLIMIT_CORE) to 0,
 * which keychainkit_restore_core_dumps() raises again before an execve().
 * 0 on success, -1 with errno. */
int keychainkit_forbid_core_dumps(int undumpable);

/* Puts back the core file limit keychainkit_forbid_core_dumps() lowered,
 * if it did: for the command `keychainkit run` executes. */
void keychainkit_restore_core_dumps(void);

/* Allocates a list for kk_list(): room for `count` string pointers and a
 * terminating NULL, followed by `text_bytes` bytes for the strings, in one
 * block released by kk_list_free(); NULL when out of memory. */
char **keychainkit_list_alloc(size_t count, size_t text_bytes);

#endif
