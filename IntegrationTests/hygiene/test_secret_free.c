/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
/*
 * test_secret_free.c — kk_secret_free() wipes the secret before its memory
 * is used again (header: "Overwrites a value returned by kk_get() with
 * zeros and frees it").
 *
 * Values live in the library's secret memory (out of core dumps), not on
 * the malloc heap: free() never sees them (the hook checks so). A value of
 * up to 4 KiB with its header is a block of a pool that stays mapped, kept
 * for the next secret of its size: it is read after kk_secret_free() and
 * must hold no byte of the value nor a marker. A larger one is a mapping
 * of its own, which must be gone from the process (mincore: ENOMEM), with
 * the value in it.
 */
#include "free_hook.h"
#include "kt_keychain.h"
#include "markers.h"

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

/* The library's secret memory, as secret_memory.c lays it out: a header
 * of 32 bytes before each value, pool blocks of up to 4 KiB. */
#define POOL_HEADER 32
#define POOL_LARGEST 4096

/** Stores `len` bytes, reads them back, frees them under the watch and
 *  checks the block was wiped; markers are looked for in the freed block. */
static void check_wiped(const char *value, size_t len, const char *const *markers, int n)
{
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    REQUIRE(CHECK_STATUS(kk_set(kc, kt_service(), "acct", value, len), KK_OK));
    char *got = NULL;
    size_t got_len = 0;
    REQUIRE(CHECK_STATUS(kk_get(kc, kt_service(), "acct", &got, &got_len), KK_OK));
    REQUIRE(CHECK_EQ(got_len, len) && CHECK(memcmp(got, value, len) == 0));

    fh_watch(got, got_len, markers, n);
    kk_secret_free(got);
    fh_result r = fh_stop();
    CHECK_EQ(r.block_frees, 0); /* secret memory, not the heap's */

    long page = sysconf(_SC_PAGESIZE);
    if (got_len + 1 + POOL_HEADER <= POOL_LARGEST) {
        int nonzero = 0, found = 0;
        for (size_t i = 0; i <= got_len; i++) nonzero += got[i] != 0; /* the value and its NUL */
        for (int m = 0; m < n; m++) found += memmem(got - POOL_HEADER, got_len + 1 + POOL_HEADER, markers[m], strlen(markers[m])) != NULL;
        CHECK_EQ(nonzero, 0);
        CHECK_EQ(found, 0);
    } else {
        unsigned char resident;
        void *first_page = (void *)((uintptr_t)got & ~(uintptr_t)(page - 1));
        CHECK(mincore(first_page, (size_t)page, &resident) == -1 && errno == ENOMEM); /* unmapped */
    }
    CHECK_STATUS(kk_remove(kc, kt_service(), "acct"), KK_OK);
    kk_close(kc);
}

TEST(free_hook_sees_the_library_free)
{
    /* The interposition works at all: the library's own frees reach it. */
    fh_count();
    kk_keychain *kc = kt_open();
    if (kc != NULL) {
        kk_set(kc, kt_service(), "acct", "v", 1);
        kk_remove(kc, kt_service(), "acct");
    }
    kk_close(kc);
    fh_result r = fh_stop();
    CHECK(kc != NULL);
    CHECK(r.frees > 0);
}

TEST(secret_free_wipes_the_value)
{
    char m[128];
    const char *markers[] = {hy_marker(m, sizeof m, "plain")};
    check_wiped(m, strlen(m), markers, 1);
}

TEST(secret_free_wipes_past_an_embedded_nul)
{
    /* A wipe up to strlen() would leave the part after the NUL. */
    char a[128], b[128], value[300];
    const char *markers[] = {hy_marker(a, sizeof a, "before-nul"), hy_marker(b, sizeof b, "after-nul")};
    size_t la = strlen(a), lb = strlen(b);
    memcpy(value, a, la);
    value[la] = '\0';
    memcpy(value + la + 1, b, lb);
    check_wiped(value, la + 1 + lb, markers, 2);
}

TEST_ON(KT_ANY_SIZE, secret_free_wipes_a_large_value)
{
    /* 256 KiB: above glibc's mmap threshold, a different free path. */
    size_t len = 256 * 1024;
    char *value = malloc(len);
    REQUIRE(value != NULL);
    for (size_t i = 0; i < len; i++) value[i] = (char)('a' + i % 26);
    char m[128];
    const char *markers[] = {hy_marker(m, sizeof m, "large")};
    memcpy(value + len - strlen(m), m, strlen(m)); /* at the very end */
    check_wiped(value, len, markers, 1);
    free(value);
}

TEST(secret_free_of_a_value_twice_aborts_instead_of_sharing_its_block)
{
    /* A block freed twice would sit twice in its free list, and two later
     * values would share it: one caller would read another's secret. */
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    REQUIRE(CHECK_STATUS(kk_set(kc, kt_service(), "acct", "v", 1), KK_OK));
    pid_t child = fork();
    if (child == 0) {
        char *value = NULL;
        if (kk_get(kc, kt_service(), "acct", &value, NULL) != KK_OK) _exit(2);
        kk_secret_free(value);
        kk_secret_free(value);
        _exit(0);
    }
    int status = 0;
    CHECK(child > 0 && waitpid(child, &status, 0) == child);
    CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT);
    CHECK_STATUS(kk_remove(kc, kt_service(), "acct"), KK_OK);
    kk_close(kc);
}
