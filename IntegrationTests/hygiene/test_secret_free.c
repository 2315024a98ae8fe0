/*
 * test_secret_free.c — kk_secret_free() wipes the secret before the memory
 * goes back to the allocator (header: "Overwrites a value returned by
 * kk_get() with zeros and frees it").
 *
 * free_hook.c inspects the block when the library frees it. Each test also
 * checks that the hook saw exactly one free of that block during
 * kk_secret_free(): otherwise "no marker found" would prove nothing (the
 * library might free through another path the hook does not see).
 */
#include "free_hook.h"
#include "kt_keychain.h"
#include "markers.h"

#include <stdlib.h>
#include <string.h>

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

    CHECK_EQ(r.block_frees, 1);   /* the hook saw the library free this block */
    CHECK_EQ(r.nonzero_bytes, 0); /* every byte of the value and its NUL is 0 */
    CHECK_EQ(r.markers_found, 0); /* and no marker is left, header included */
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
