/* SPDX-License-Identifier: MIT */
/*
 * free_hook.c — see free_hook.h. Compiled with -fno-builtin-free so the
 * compiler treats our free() as an ordinary function. Defines realloc()
 * too, for fh_scan(): a realloc() that moves a block frees the old one
 * inside glibc, where free() never sees it.
 */
#define _GNU_SOURCE
#include "free_hook.h"

#include <dlfcn.h>
#include <execinfo.h>
#include <malloc.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* glibc's own free(), exported for exactly this use (a malloc wrapper);
 * calling it (rather than dlsym(RTLD_NEXT, "free")) cannot recurse into
 * dlsym's own allocations. */
extern void __libc_free(void *);
extern void *__libc_realloc(void *, size_t);

static atomic_int armed;            /* counting frees */
static atomic_uintptr_t watched;    /* the value, 0 when none */
static size_t watched_len;
static const char *const *markers;
static int n_markers;
static atomic_int frees, block_frees, nonzero_bytes, markers_found;

/* fh_scan(): every block freed is searched for these. */
static atomic_int scanning;
static const char *const *scan_markers;
static int scan_n;
static const char *scan_witness;
static atomic_int scan_frees, scan_reallocs, scan_found, scan_witnessed;
static fh_scan_result first; /* written by the first finder only */
static __thread int in_hook; /* backtrace() may free: no recursion */

/* The index of the first marker in the block, or -1; sets *offset. */
static int find_marker(const void *p, size_t size, size_t *offset)
{
    for (int m = 0; m < scan_n; m++) {
        const char *hit = memmem(p, size, scan_markers[m], strlen(scan_markers[m]));
        if (hit != NULL) {
            *offset = (size_t)(hit - (const char *)p);
            return m;
        }
    }
    return -1;
}

/* Whether the block holds the witness. */
static int has_witness(const void *p, size_t size)
{
    return scan_witness != NULL && memmem(p, size, scan_witness, strlen(scan_witness)) != NULL;
}

/* Records that a block of `size` bytes went back to the allocator holding
 * marker `m` (none when m < 0) at `offset`, and the witness or not. */
static void record_release(int m, int witnessed, size_t size, size_t offset, int by_realloc)
{
    atomic_fetch_add(&scan_frees, 1);
    if (witnessed) atomic_fetch_add(&scan_witnessed, 1);
    if (m < 0 || atomic_fetch_add(&scan_found, 1) != 0) return;
    first.marker = m;
    first.size = size;
    first.offset = offset;
    first.by_realloc = by_realloc;
    first.frames = backtrace(first.frame, FH_FRAMES);
}

void *realloc(void *p, size_t n)
{
    if (p == NULL || !atomic_load(&scanning) || in_hook) return __libc_realloc(p, n);
    in_hook = 1;
    atomic_fetch_add(&scan_reallocs, 1);
    /* Searched before the call, while the block is still ours. */
    size_t size = malloc_usable_size(p), offset = 0;
    int m = find_marker(p, size, &offset), witnessed = has_witness(p, size);
    void *q = __libc_realloc(p, n);
    /* Moved (or freed, n == 0): the old block went back as it was. Shrunk
     * in place past the marker: the tail holding it went back. */
    if (q != p && (q != NULL || n == 0))
        record_release(m, witnessed, size, offset, 1);
    else if (q == p && m >= 0 && offset + strlen(scan_markers[m]) > malloc_usable_size(q))
        record_release(m, 0, size, offset, 1);
    in_hook = 0;
    return q;
}

void free(void *p)
{
    if (p != NULL && atomic_load(&scanning) && !in_hook) {
        in_hook = 1;
        size_t size = malloc_usable_size(p), offset = 0;
        int m = find_marker(p, size, &offset);
        record_release(m, has_witness(p, size), size, offset, 0);
        in_hook = 0;
    }
    if (p != NULL && atomic_load(&armed)) {
        atomic_fetch_add(&frees, 1);
        uintptr_t block = (uintptr_t)p, value = atomic_load(&watched);
        /* The block holding the value starts a little before it (the
         * library's header) and extends past its terminator; checking the
         * end too rules out a small neighbour freed by another thread. */
        if (value != 0 && block <= value && value - block <= FH_HEADER_MAX &&
            block + malloc_usable_size(p) >= value + watched_len + 1) {
            /* The block still holds whatever the library left in it. */
            atomic_fetch_add(&block_frees, 1);
            const unsigned char *v = (const unsigned char *)value;
            for (size_t i = 0; i <= watched_len; i++)
                if (v[i] != 0) atomic_fetch_add(&nonzero_bytes, 1);
            size_t span = value + watched_len + 1 - block;
            for (int m = 0; m < n_markers; m++)
                if (memmem(p, span, markers[m], strlen(markers[m])) != NULL)
                    atomic_fetch_add(&markers_found, 1);
        }
    }
    __libc_free(p);
}

static void reset(void)
{
    atomic_store(&frees, 0);
    atomic_store(&block_frees, 0);
    atomic_store(&nonzero_bytes, 0);
    atomic_store(&markers_found, 0);
}

void fh_watch(const char *value, size_t len, const char *const *m, int n)
{
    reset();
    watched_len = len;
    markers = m;
    n_markers = n;
    atomic_store(&watched, (uintptr_t)value);
    atomic_store(&armed, 1);
}

void fh_count(void)
{
    reset();
    atomic_store(&watched, 0);
    atomic_store(&armed, 1);
}

fh_result fh_stop(void)
{
    atomic_store(&armed, 0);
    atomic_store(&watched, 0);
    return (fh_result){atomic_load(&frees), atomic_load(&block_frees), atomic_load(&nonzero_bytes),
                       atomic_load(&markers_found)};
}

void fh_scan(const char *const *m, int n, const char *witness)
{
    void *warm[2];
    backtrace(warm, 2); /* loads the unwinder now, not inside free() */
    atomic_store(&scan_frees, 0);
    atomic_store(&scan_reallocs, 0);
    atomic_store(&scan_found, 0);
    atomic_store(&scan_witnessed, 0);
    scan_witness = witness;
    memset(&first, 0, sizeof first);
    first.marker = -1;
    scan_markers = m;
    scan_n = n;
    atomic_store(&scanning, 1);
}

fh_scan_result fh_scan_stop(void)
{
    atomic_store(&scanning, 0);
    fh_scan_result r = first;
    r.frees = atomic_load(&scan_frees);
    r.reallocs = atomic_load(&scan_reallocs);
    r.blocks_with_marker = atomic_load(&scan_found);
    r.blocks_with_witness = atomic_load(&scan_witnessed);
    return r;
}

void fh_print_origin(const fh_scan_result *r)
{
    if (r->blocks_with_marker == 0) return;
    printf("    a block of %zu usable bytes went back to the allocator by %s holding marker %d at "
           "offset %zu; its call stack:\n",
           r->size, r->by_realloc ? "realloc (moved or shrunk)" : "free", r->marker, r->offset);
    for (int i = 0; i < r->frames; i++) {
        Dl_info info;
        if (dladdr(r->frame[i], &info) != 0 && info.dli_fname != NULL)
            printf("      #%d %s+0x%lx (%s)\n", i, info.dli_fname,
                   (unsigned long)((uintptr_t)r->frame[i] - (uintptr_t)info.dli_fbase),
                   info.dli_sname != NULL ? info.dli_sname : "?");
        else
            printf("      #%d %p\n", i, r->frame[i]);
    }
    fflush(stdout);
}
