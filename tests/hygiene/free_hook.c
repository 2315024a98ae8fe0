/*
 * free_hook.c — see free_hook.h. Compiled with -fno-builtin-free so the
 * compiler treats our free() as an ordinary function.
 */
#define _GNU_SOURCE
#include "free_hook.h"

#include <malloc.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

/* glibc's own free(), exported for exactly this use (a malloc wrapper);
 * calling it (rather than dlsym(RTLD_NEXT, "free")) cannot recurse into
 * dlsym's own allocations. */
extern void __libc_free(void *);

static atomic_int armed;            /* counting frees */
static atomic_uintptr_t watched;    /* the value, 0 when none */
static size_t watched_len;
static const char *const *markers;
static int n_markers;
static atomic_int frees, block_frees, nonzero_bytes, markers_found;

void free(void *p)
{
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
