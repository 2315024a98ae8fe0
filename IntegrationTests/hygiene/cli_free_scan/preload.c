/* SPDX-License-Identifier: MIT */
/*
 * preload.c — LD_PRELOAD object for cli_free_scan.sh: searches every heap
 * block that a process gives back to the allocator for a secret's marker.
 *
 *   KK_SCAN_MARKER   the marker; its first 16 bytes (all of it when
 *                    shorter) are searched for, so that a secret split
 *                    across read chunks is still found in every piece that
 *                    holds one whole copy of the prefix
 *   KK_SCAN_REPORT   file that gets one line per block found holding it
 *                    (how it went back, its usable size, the prefix's
 *                    offset in it, the call stack as module+offset);
 *                    nothing is written while nothing is found
 *   KK_SCAN_STATS    (optional) file that gets, at exit, one line of
 *                    counts: blocks searched, reallocs, bytes searched,
 *                    largest block, blocks of 64 KiB or more, blocks
 *                    holding the witness
 *   KK_SCAN_WITNESS  (optional) a string that is no secret (an account
 *                    name): blocks holding it are counted, to show that the
 *                    blocks where it lives were searched
 *
 * Interposes free(), realloc() and reallocarray() (libsystemd calls it):
 * a realloc that moves a block, or frees it (size 0), gives the whole old
 * block back; one that shrinks it in place gives back its tail. The real
 * functions come from dlsym(RTLD_NEXT); dlsym itself may allocate and free,
 * so while they are being looked up (and inside the hook, where
 * backtrace() and dladdr() run) calls go straight to glibc's exported
 * __libc_free / __libc_realloc. Reports are written with write(2) only
 * (no stdio, which allocates). The whole usable size of each block is
 * searched (malloc_usable_size), so bytes past what the program asked for
 * count too.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <execinfo.h>
#include <fcntl.h>
#include <malloc.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PREFIX_MAX 16
#define FRAMES 16
#define BIG_BLOCK 65536

extern void __libc_free(void *);
extern void *__libc_realloc(void *, size_t);

static void (*real_free)(void *);
static void *(*real_realloc)(void *, size_t);
static void *(*real_reallocarray)(void *, size_t, size_t);

static char prefix[PREFIX_MAX + 1];
static size_t prefix_len;       /* 0: nothing to search for */
static char witness[256];
static size_t witness_len;
static char report_path[4096];
static char stats_path[4096];
static atomic_int ready;        /* configured and the real functions known */
static atomic_int resolving;    /* a thread is inside dlsym() */
static __thread int in_hook __attribute__((tls_model("initial-exec")));    /* no recursion through our own calls */

static atomic_ulong n_blocks, n_reallocs, n_big, n_witness, n_hits;
static atomic_ulong bytes_searched, largest;

/* ---- tiny formatting, no allocation -------------------------------------- */

typedef struct line {
    char buf[2048];
    size_t len;
} line;

static void put(line *l, const char *s)
{
    while (*s != '\0' && l->len < sizeof l->buf - 1) l->buf[l->len++] = *s++;
}

static void put_num(line *l, unsigned long v, int base)
{
    char digits[32];
    int n = 0;
    do {
        digits[n++] = "0123456789abcdef"[v % (unsigned)base];
        v /= (unsigned)base;
    } while (v != 0);
    if (base == 16) put(l, "0x");
    while (n > 0 && l->len < sizeof l->buf - 1) l->buf[l->len++] = digits[--n];
}

static void append_to(const char *path, const line *l)
{
    if (path[0] == '\0') return;
    int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
    if (fd < 0) return;
    size_t done = 0;
    while (done < l->len) {
        ssize_t n = write(fd, l->buf + done, l->len - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) break;
        done += (size_t)n;
    }
    close(fd);
}

/* ---- setup ------------------------------------------------------------------ */

static void copy_env(const char *name, char *dst, size_t size, size_t *len)
{
    const char *v = getenv(name);
    size_t n = v == NULL ? 0 : strlen(v);
    if (n > size - 1) n = size - 1;
    if (n > 0) memcpy(dst, v, n);
    dst[n] = '\0';
    if (len != NULL) *len = n;
}

static void resolve(void)
{
    if (atomic_load(&ready)) return;
    int expected = 0;
    if (!atomic_compare_exchange_strong(&resolving, &expected, 1)) return; /* another thread */
    in_hook++;
    real_free = (void (*)(void *))dlsym(RTLD_NEXT, "free");
    real_realloc = (void *(*)(void *, size_t))dlsym(RTLD_NEXT, "realloc");
    real_reallocarray = (void *(*)(void *, size_t, size_t))dlsym(RTLD_NEXT, "reallocarray");
    copy_env("KK_SCAN_MARKER", prefix, sizeof prefix, &prefix_len); /* its first 16 bytes */
    copy_env("KK_SCAN_WITNESS", witness, sizeof witness, &witness_len);
    copy_env("KK_SCAN_REPORT", report_path, sizeof report_path, NULL);
    copy_env("KK_SCAN_STATS", stats_path, sizeof stats_path, NULL);
    void *warm[2];
    backtrace(warm, 2); /* loads libgcc_s's unwinder now, not inside free() */
    in_hook--;
    if (real_free != NULL && real_realloc != NULL) atomic_store(&ready, 1);
    atomic_store(&resolving, 0);
}

__attribute__((constructor)) static void init(void) { resolve(); }

__attribute__((destructor)) static void fini(void)
{
    line l = {.len = 0};
    put(&l, "blocks=");
    put_num(&l, atomic_load(&n_blocks), 10);
    put(&l, " reallocs=");
    put_num(&l, atomic_load(&n_reallocs), 10);
    put(&l, " bytes=");
    put_num(&l, atomic_load(&bytes_searched), 10);
    put(&l, " largest=");
    put_num(&l, atomic_load(&largest), 10);
    put(&l, " big=");
    put_num(&l, atomic_load(&n_big), 10);
    put(&l, " witness=");
    put_num(&l, atomic_load(&n_witness), 10);
    put(&l, " hits=");
    put_num(&l, atomic_load(&n_hits), 10);
    put(&l, "\n");
    append_to(stats_path, &l);
}

/* ---- searching ----------------------------------------------------------- */

static int active(void) { return atomic_load(&ready) && prefix_len > 0 && in_hook == 0; }

/* Offset of the first copy of the prefix in [p+from, p+size), or -1. */
static long find_from(const char *p, size_t from, size_t size)
{
    if (from >= size) return -1;
    const char *hit = memmem(p + from, size - from, prefix, prefix_len);
    return hit == NULL ? -1 : (long)(hit - p);
}

/* Offset of the last copy of the prefix in the block, or -1. */
static long find_last(const char *p, size_t size)
{
    long last = -1, at = find_from(p, 0, size);
    while (at >= 0) {
        last = at;
        at = find_from(p, (size_t)at + 1, size);
    }
    return last;
}

static int has_witness(const void *p, size_t size)
{
    return witness_len > 0 && memmem(p, size, witness, witness_len) != NULL;
}

/* Counts one block given back, searched across its whole usable size. */
static void count_block(size_t size, int witnessed)
{
    atomic_fetch_add(&n_blocks, 1);
    atomic_fetch_add(&bytes_searched, size);
    if (size >= BIG_BLOCK) atomic_fetch_add(&n_big, 1);
    if (witnessed) atomic_fetch_add(&n_witness, 1);
    unsigned long seen = atomic_load(&largest);
    while (size > seen && !atomic_compare_exchange_weak(&largest, &seen, size)) {
    }
}

static void report(const char *how, size_t size, long offset)
{
    atomic_fetch_add(&n_hits, 1);
    line l = {.len = 0};
    put(&l, how);
    put(&l, " size=");
    put_num(&l, size, 10);
    put(&l, " offset=");
    put_num(&l, (unsigned long)offset, 10);
    put(&l, " stack:");
    void *frame[FRAMES];
    int n = backtrace(frame, FRAMES);
    Dl_info self, info;
    if (dladdr((void *)report, &self) == 0) self.dli_fbase = NULL;
    for (int i = 0; i < n; i++) {
        int found = dladdr(frame[i], &info) != 0;
        if (found && info.dli_fbase == self.dli_fbase) continue; /* this hook */
        put(&l, " ");
        if (found && info.dli_fname != NULL) {
            const char *base = strrchr(info.dli_fname, '/');
            put(&l, base != NULL ? base + 1 : info.dli_fname);
            put(&l, "+");
            put_num(&l, (unsigned long)((uintptr_t)frame[i] - (uintptr_t)info.dli_fbase), 16);
            if (info.dli_sname != NULL) {
                put(&l, "(");
                put(&l, info.dli_sname);
                put(&l, ")");
            }
        } else {
            put_num(&l, (unsigned long)(uintptr_t)frame[i], 16);
        }
    }
    put(&l, "\n");
    append_to(report_path, &l);
}

/* ---- the interposed functions ------------------------------------------ */

void free(void *p)
{
    if (!atomic_load(&ready) && !atomic_load(&resolving)) resolve();
    if (p != NULL && active()) {
        in_hook++;
        size_t size = malloc_usable_size(p);
        count_block(size, has_witness(p, size));
        long at = find_from(p, 0, size);
        if (at >= 0) report("free", size, at);
        in_hook--;
    }
    if (real_free != NULL && atomic_load(&ready)) real_free(p);
    else __libc_free(p);
}

/* realloc and reallocarray: `call` makes the real call. */
static void *hooked_realloc(void *p, size_t n, void *(*call)(void *, size_t, size_t), size_t a,
                            size_t b)
{
    if (p == NULL || !active()) return call(p, a, b);
    in_hook++;
    atomic_fetch_add(&n_reallocs, 1);
    size_t size = malloc_usable_size(p);
    /* Searched before the call, while the block is still ours. */
    long first = find_from(p, 0, size);
    long last = first >= 0 && n < size ? find_last(p, size) : first;
    int witnessed = has_witness(p, size);
    void *q = call(p, a, b);
    if (q != p && (q != NULL || n == 0)) {
        /* Moved, or freed (size 0): the old block went back as it was. */
        count_block(size, witnessed);
        if (first >= 0) report(q == NULL ? "realloc-free" : "realloc-move", size, first);
    } else if (q == p && last >= 0 && (size_t)last + prefix_len > malloc_usable_size(q)) {
        /* Shrunk in place: the tail holding a copy went back. */
        report("realloc-shrink", size, last);
    }
    in_hook--;
    return q;
}

static void *call_realloc(void *p, size_t n, size_t unused)
{
    (void)unused;
    if (real_realloc != NULL && atomic_load(&ready)) return real_realloc(p, n);
    return __libc_realloc(p, n);
}

static void *call_reallocarray(void *p, size_t count, size_t each)
{
    if (real_reallocarray != NULL && atomic_load(&ready)) return real_reallocarray(p, count, each);
    size_t n;
    if (__builtin_mul_overflow(count, each, &n)) {
        errno = ENOMEM;
        return NULL;
    }
    return __libc_realloc(p, n);
}

void *realloc(void *p, size_t n)
{
    if (!atomic_load(&ready) && !atomic_load(&resolving)) resolve();
    return hooked_realloc(p, n, call_realloc, n, 0);
}

void *reallocarray(void *p, size_t count, size_t each)
{
    if (!atomic_load(&ready) && !atomic_load(&resolving)) resolve();
    size_t n;
    if (__builtin_mul_overflow(count, each, &n)) return call_reallocarray(p, count, each); /* fails */
    return hooked_realloc(p, n, call_reallocarray, count, each);
}
