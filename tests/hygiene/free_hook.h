/*
 * free_hook.h — watch what happens to one block when it is freed.
 *
 * The hygiene runner defines free() itself (free_hook.c). The executable's
 * definition comes first in symbol lookup, so the library's calls to free()
 * (through its PLT) land here too; every call is forwarded to glibc's
 * allocator. While a value is watched, the free of the block that holds it
 * is inspected before the memory goes back to the allocator.
 */
#ifndef FREE_HOOK_H
#define FREE_HOOK_H

#include <stddef.h>

/** What was seen between fh_watch() and fh_stop(). */
typedef struct fh_result {
    int frees;          /* free() calls with a non-NULL pointer, any block */
    int block_frees;    /* free() calls of the block holding the value */
    int nonzero_bytes;  /* bytes of value[0..len] (terminator included) not 0 */
    int markers_found;  /* markers found from the block start to value+len+1 */
} fh_result;

/** Starts watching `value` (as kk_get returned it, `len` bytes plus the
 *  terminator) for the given markers (NUL-terminated strings, to be
 *  found anywhere in the freed block, header included). A block "holds the
 *  value" when the pointer freed is at most FH_HEADER_MAX bytes before it
 *  (the library keeps a size header in front of the value) and the block
 *  reaches past its terminator. */
void fh_watch(const char *value, size_t len, const char *const *markers, int n_markers);

/** Counts every free() from now on, watching no block. */
void fh_count(void);

/** Stops watching and returns what was seen. */
fh_result fh_stop(void);

#define FH_HEADER_MAX 64

#endif /* FREE_HOOK_H */
