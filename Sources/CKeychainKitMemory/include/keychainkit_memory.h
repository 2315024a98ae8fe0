/* SPDX-License-Identifier: MIT */
/* The C underneath KeychainKitSystem: memory for secrets and new files.
 * Internal to libkeychainkit and the tools (named keychainkit_*, not
 * exported); kk_secret_free() is keychainkit_secret_release() for C
 * callers. */
#ifndef KEYCHAINKIT_MEMORY_H
#define KEYCHAINKIT_MEMORY_H

#include <stddef.h>

/* Allocates a secret buffer of `length` bytes plus a NUL terminator, to be
 * released with keychainkit_secret_release() (kk_secret_free()); NULL when
 * out of memory. The memory is excluded from core dumps (MADV_DONTDUMP) and
 * locked (mlock) where RLIMIT_MEMLOCK allows (secret_memory.c). */
char *keychainkit_secret_alloc(size_t length);

/* Wipes a buffer of keychainkit_secret_alloc() and gives it back; NULL is
 * ignored. Aborts on a pointer it did not hand out or one released twice. */
void keychainkit_secret_release(char *value);

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

/* Creates and opens a new file (mode 0600) named by `name_template`, whose
 * last six characters "XXXXXX" it replaces (mkstemp), closed on exec from
 * the start (O_CLOEXEC: no other thread's fork and exec inherits it); the
 * descriptor, or -1 with errno. */
int keychainkit_create_unique_file(char *name_template);

#endif
