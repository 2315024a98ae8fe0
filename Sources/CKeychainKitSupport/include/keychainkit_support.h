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

/* Allocates a secret buffer of `length` bytes plus a NUL terminator, to be
 * released with kk_secret_free(); NULL when out of memory. The memory is
 * excluded from core dumps (MADV_DONTDUMP) and locked (mlock) where
 * RLIMIT_MEMLOCK allows (secret_memory.c). */
char *keychainkit_secret_alloc(size_t length);

/* Installs the secret memory pool's fork() handlers (its lock is held
 * across fork), once. Prepare handlers run in the reverse order of their
 * installation: whoever installs one that waits for threads which may
 * allocate or free secret memory meanwhile (ForkGeneration's, which waits
 * until no Locked section runs) installs the pool's first, so that the
 * pool's lock is taken only once those threads are done. */
void keychainkit_secret_memory_install_fork_handlers(void);

/* Overwrites `bytes` (at most 64 KiB) of the calling thread's stack below
 * the caller's frame with zeros, and on x86-64 the vector registers: what
 * the calls that read a secret left there (the decryption's and the
 * copies' temporaries; memcpy() keeps a value's ends in ymm registers) is
 * gone before the caller returns, so no core dump holds it. */
void keychainkit_burn_stack(size_t bytes);

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

/* Creates and opens a new file (mode 0600) named by `name_template`, whose
 * last six characters "XXXXXX" it replaces (mkstemp), closed on exec from
 * the start (O_CLOEXEC: no other thread's fork and exec inherits it); the
 * descriptor, or -1 with errno. */
int keychainkit_create_unique_file(char *name_template);

/* Allocates a list for kk_list(): room for `count` string pointers and a
 * terminating NULL, followed by `text_bytes` bytes for the strings, in one
 * block released by kk_list_free(); NULL when out of memory. */
char **keychainkit_list_alloc(size_t count, size_t text_bytes);

#endif
