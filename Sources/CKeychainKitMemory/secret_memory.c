/* SPDX-License-Identifier: MIT */
/* Secret buffers (those handed to C callers, and what a handle keeps), in
 * memory kept out of core dumps (MADV_DONTDUMP) and out of swap (mlock)
 * where RLIMIT_MEMLOCK allows, as libsecret's secure memory is. A hidden
 * header keeps the size, so that keychainkit_secret_release() (C callers'
 * kk_secret_free()) can wipe the whole value before the block is reused,
 * and a state word, so that a double free aborts.
 *
 * Blocks of up to POOL_LARGEST bytes (header included) come from chunks of
 * CHUNK_BYTES, one free list per power-of-two size; a freed block is wiped
 * and kept for the next secret of its size. A larger block is a mapping of
 * its own, wiped and unmapped when freed. Where mlock fails (the limit
 * reached), the memory is still excluded from dumps, only not locked. */
#define _DEFAULT_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#if defined(__x86_64__)
#include <sys/platform/x86.h>
#endif

#include "keychainkit_memory.h"

/* The header's size on every platform: 32 bytes, the alignment of the
 * values (x86-64's max_align_t). */
#define HEADER_BYTES 32

typedef union {
    struct {
        size_t size;       /* bytes of the whole block, header included */
        size_t size_class; /* index of its free list; NO_CLASS: a mapping of its own */
        uintptr_t state;   /* LIVE or FREE, mixed with the block's address */
        void *next;        /* a free block's successor in its free list */
    } info;
    max_align_t align;
    unsigned char bytes[HEADER_BYTES];
} secret_header;

/* A block's state word: a pointer released that we did not hand out, or
 * one freed twice, aborts (as glibc's free() does) instead of handing one
 * block to two callers. */
#define LIVE ((uintptr_t)0x6b6b4c6976650000u)
#define FREE ((uintptr_t)0x6b6b467265650000u)
#define STATE(header, word) ((word) ^ (uintptr_t)(header))

#define SMALLEST_SHIFT 6 /* 64 bytes */
#define CLASSES 7        /* 64 ... 4096 bytes */
#define POOL_LARGEST ((size_t)1 << (SMALLEST_SHIFT + CLASSES - 1))
#define CHUNK_BYTES ((size_t)64 * 1024)
#define NO_CLASS ((size_t)-1)
#define BURN_STACK_LARGEST ((size_t)64 * 1024)
/* The stack one burning frame zeroes: less than a guard page, so that a
 * thread short of stack faults on its guard page instead of writing past
 * it (each frame's zeroing starts at its lowest address). */
#define BURN_STACK_STEP ((size_t)2048)


static pthread_mutex_t pool_lock = PTHREAD_MUTEX_INITIALIZER;
static secret_header *free_lists[CLASSES];
static pthread_once_t fork_handlers_once = PTHREAD_ONCE_INIT;

/* A child of fork() inherits the pool; the lock is never copied held. */
static void lock_pool(void) { pthread_mutex_lock(&pool_lock); }
static void unlock_pool(void) { pthread_mutex_unlock(&pool_lock); }
static void install_fork_handlers(void) { pthread_atfork(lock_pool, unlock_pool, unlock_pool); }

void keychainkit_secret_memory_install_fork_handlers(void) {
    pthread_once(&fork_handlers_once, install_fork_handlers);
}

/* `size` bytes of fresh memory out of dumps (and locked, when allowed);
 * NULL when out of memory. */
static void *map_secret_memory(size_t size) {
    void *memory = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (memory == MAP_FAILED)
        return NULL;
    (void)madvise(memory, size, MADV_DONTDUMP);
    (void)mlock(memory, size); /* best effort: RLIMIT_MEMLOCK may not allow it */
    return memory;
}

static size_t class_of(size_t size) {
    size_t size_class = 0;
    while (((size_t)1 << (SMALLEST_SHIFT + size_class)) < size)
        size_class++;
    return size_class;
}

/* A block of `size_class`, from its free list or a new chunk cut up; NULL
 * when out of memory. */
static secret_header *pool_block(size_t size_class) {
    size_t block_bytes = (size_t)1 << (SMALLEST_SHIFT + size_class);
    pthread_mutex_lock(&pool_lock);
    if (free_lists[size_class] == NULL) {
        char *chunk = map_secret_memory(CHUNK_BYTES);
        if (chunk == NULL) {
            pthread_mutex_unlock(&pool_lock);
            return NULL;
        }
        for (size_t offset = CHUNK_BYTES; offset >= block_bytes; offset -= block_bytes) {
            secret_header *header = (secret_header *)(chunk + offset - block_bytes);
            header->info.size = block_bytes;
            header->info.size_class = size_class;
            header->info.state = STATE(header, FREE);
            header->info.next = free_lists[size_class];
            free_lists[size_class] = header;
        }
    }
    secret_header *header = free_lists[size_class];
    free_lists[size_class] = header->info.next;
    pthread_mutex_unlock(&pool_lock);
    header->info.next = NULL;
    return header;
}

char *keychainkit_secret_alloc(size_t length) {
    if (length > SIZE_MAX - sizeof(secret_header) - 1 - (size_t)getpagesize())
        return NULL;
    keychainkit_secret_memory_install_fork_handlers();
    size_t size = sizeof(secret_header) + length + 1;
    secret_header *header;
    if (size <= POOL_LARGEST) {
        header = pool_block(class_of(size));
    } else {
        size_t page = (size_t)getpagesize();
        size = (size + page - 1) / page * page;
        header = map_secret_memory(size);
        if (header != NULL) {
            header->info.size = size;
            header->info.size_class = NO_CLASS;
        }
    }
    if (header == NULL)
        return NULL;
    header->info.state = STATE(header, LIVE);
    char *value = (char *)(header + 1);
    value[length] = '\0';
    return value;
}

void keychainkit_secret_release(char *value) {
    if (value == NULL)
        return;
    secret_header *header = (secret_header *)value - 1;
    if (header->info.state != STATE(header, LIVE))
        abort(); /* not ours, or freed already */
    size_t size = header->info.size, size_class = header->info.size_class;
    explicit_bzero(value, size - sizeof *header);
    if (size_class == NO_CLASS) {
        header->info.state = 0;
        munmap(header, size);
        return;
    }
    header->info.state = STATE(header, FREE);
    pthread_mutex_lock(&pool_lock);
    header->info.next = free_lists[size_class];
    free_lists[size_class] = header;
    pthread_mutex_unlock(&pool_lock);
}

_Static_assert(sizeof(secret_header) == HEADER_BYTES, "a header of HEADER_BYTES keeps values aligned");

#if defined(__x86_64__)
/* Zeroes the vector registers a copy of a secret may have left it in: the
 * last memcpy() keeps the value's first and last 32 bytes in ymm (or, in
 * glibc's EVEX variants, ymm16-31) registers, which a core dump records.
 * Every vector register is caller-saved: clobbering them in a function of
 * their own is safe. */
__attribute__((noinline, target("avx512f"))) static void zero_avx512_registers(void) {
    __asm__ volatile("vzeroall\n\t"
                     "vpxord %%zmm16, %%zmm16, %%zmm16\n\tvpxord %%zmm17, %%zmm17, %%zmm17\n\t"
                     "vpxord %%zmm18, %%zmm18, %%zmm18\n\tvpxord %%zmm19, %%zmm19, %%zmm19\n\t"
                     "vpxord %%zmm20, %%zmm20, %%zmm20\n\tvpxord %%zmm21, %%zmm21, %%zmm21\n\t"
                     "vpxord %%zmm22, %%zmm22, %%zmm22\n\tvpxord %%zmm23, %%zmm23, %%zmm23\n\t"
                     "vpxord %%zmm24, %%zmm24, %%zmm24\n\tvpxord %%zmm25, %%zmm25, %%zmm25\n\t"
                     "vpxord %%zmm26, %%zmm26, %%zmm26\n\tvpxord %%zmm27, %%zmm27, %%zmm27\n\t"
                     "vpxord %%zmm28, %%zmm28, %%zmm28\n\tvpxord %%zmm29, %%zmm29, %%zmm29\n\t"
                     "vpxord %%zmm30, %%zmm30, %%zmm30\n\tvpxord %%zmm31, %%zmm31, %%zmm31"
                     ::: "memory");
}

__attribute__((noinline, target("avx"))) static void zero_avx_registers(void) {
    __asm__ volatile("vzeroall" ::: "memory");
}

__attribute__((noinline)) static void zero_sse_registers(void) {
    __asm__ volatile("pxor %%xmm0, %%xmm0\n\tpxor %%xmm1, %%xmm1\n\tpxor %%xmm2, %%xmm2\n\tpxor %%xmm3, %%xmm3\n\t"
                     "pxor %%xmm4, %%xmm4\n\tpxor %%xmm5, %%xmm5\n\tpxor %%xmm6, %%xmm6\n\tpxor %%xmm7, %%xmm7\n\t"
                     "pxor %%xmm8, %%xmm8\n\tpxor %%xmm9, %%xmm9\n\tpxor %%xmm10, %%xmm10\n\tpxor %%xmm11, %%xmm11\n\t"
                     "pxor %%xmm12, %%xmm12\n\tpxor %%xmm13, %%xmm13\n\tpxor %%xmm14, %%xmm14\n\tpxor %%xmm15, %%xmm15"
                     ::: "memory");
}
#endif

/* Zeroes BURN_STACK_STEP bytes in its own frame, then the next step below
 * in a callee's: the stack is written from the top down, a step at a time. */
__attribute__((noinline)) static void burn_steps(size_t steps) {
    unsigned char step[BURN_STACK_STEP];
    explicit_bzero(step, sizeof step);
    if (steps > 1)
        burn_steps(steps - 1);
    __asm__ volatile("" : : "r"(step) : "memory"); /* no tail call: the frames stack up */
}

void keychainkit_burn_stack(size_t bytes) {
    if (bytes > BURN_STACK_LARGEST)
        bytes = BURN_STACK_LARGEST;
    burn_steps((bytes + BURN_STACK_STEP - 1) / BURN_STACK_STEP);
#if defined(__x86_64__)
    /* glibc's record of the CPU, made by the dynamic loader at start
     * (glibc 2.33): not __builtin_cpu_supports, whose libgcc constructor
     * asks the CPU again in every process that links it (cpuid, which a
     * virtual machine traps), libkeychainkit.so's users included. glibc's
     * EVEX string functions (ymm16-31) need AVX512VL active, which a
     * tunable may leave on with AVX512F off. */
    if (CPU_FEATURE_ACTIVE(AVX512F) || CPU_FEATURE_ACTIVE(AVX512VL))
        zero_avx512_registers();
    else if (CPU_FEATURE_ACTIVE(AVX))
        zero_avx_registers();
    else
        zero_sse_registers();
#endif
}
