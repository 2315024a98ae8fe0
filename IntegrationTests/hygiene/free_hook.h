/* SPDX-License-Identifier: MIT */
/*
 * free_hook.h — watch what happens to one block when it is freed.
 *
 * The hygiene runner defines free() itself (free_hook.c). The executable's
 * definition comes first in symbol lookup, so the library's calls to free()
 * (through its PLT) land here too; every call is forwarded to glibc's
 * allocator. While a value is watched, the free of the block that holds it
 * is inspected before the memory goes back to the allocator. While markers
 * are scanned for (fh_scan), every freed block is searched, and realloc()
 * (defined there too) counts the old block of a move as freed.
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

/* ---- scanning every freed block ----------------------------------------- */

#define FH_FRAMES 24

/** What fh_scan() saw until fh_scan_stop(). */
typedef struct fh_scan_result {
    int frees;              /* blocks given back: free(), and realloc() moves */
    int reallocs;           /* realloc() calls of a non-NULL block */
    int blocks_with_marker; /* of those, how many held a marker */
    int blocks_with_witness; /* how many held the witness (not a secret) */
    /* The first block that held one: */
    int marker;             /* index of the marker found */
    size_t size;            /* its usable size */
    size_t offset;          /* where the marker starts in it */
    int by_realloc;         /* 1 when realloc() moved it, 0 for free() */
    int frames;             /* the call stack of that free or realloc */
    void *frame[FH_FRAMES];
} fh_scan_result;

/** From now on, searches every block freed (anywhere in the process: the
 *  library, libgcrypt, libsystemd, the Swift runtime) for the markers,
 *  across its whole usable size; also the old block of a realloc() that
 *  moved it, which the allocator takes back unwiped. `witness` (or NULL)
 *  is a string that is not secret, counted apart: finding it shows that
 *  the blocks where it lives (say, D-Bus messages) were searched. The
 *  strings must stay valid until fh_scan_stop(). */
void fh_scan(const char *const *markers, int n_markers, const char *witness);

/** Stops scanning and returns what was seen. */
fh_scan_result fh_scan_stop(void);

/** Prints where the first block with a marker was freed (its size, the
 *  marker's offset, the call stack as module+offset, to resolve with
 *  addr2line against unstripped builds) to standard output. */
void fh_print_origin(const fh_scan_result *r);

#define FH_HEADER_MAX 64

#endif /* FREE_HOOK_H */
