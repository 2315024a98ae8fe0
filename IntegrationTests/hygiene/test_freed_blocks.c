/* SPDX-License-Identifier: MIT */
/*
 * test_freed_blocks.c — no memory goes back to the allocator holding a
 * secret in clear, anywhere in the process, through a whole item life:
 * kk_set (insert), kk_get + kk_secret_free, kk_set (replace), kk_get +
 * kk_secret_free, kk_remove, kk_get of the absent key, kk_close.
 *
 * On the Secret Service (the private gnome-keyring) that covers the sd-bus
 * transport and its encrypted transfer session: the plaintext lives in the
 * library's byte arrays (wiped), the AES input and output buffers and
 * libgcrypt's cipher contexts (erased on close); sd-bus messages carry only
 * ciphertext (and are marked sensitive). On memory: the stored values
 * (wiped on replace, removal and release).
 *
 * free_hook.c searches every block freed, and the old block of every
 * realloc() that moves, for the secret markers. So that "not found" means
 * something: free_hook_finds_a_marker_in_a_freed_block shows the search
 * finds one (in a block the test frees, and in one realloc() moves); and on
 * the Secret Service a witness that is no secret — the account name, which
 * travels in D-Bus messages nobody wipes — must be found in blocks freed
 * during the same run, so those blocks were searched.
 *
 * On a failure, the size of the first block found and the call stack of
 * its free (module+offset, for addr2line on the unstripped
 * .build/release/libkeychainkit.so) are printed.
 */
#include "free_hook.h"
#include "kt_keychain.h"
#include "markers.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/** Goes through an item's life with `first`, then `second`, as its value,
 *  searching every freed block for `markers`; checks that none held one. */
static void check_item_life(const char *first, size_t first_len, const char *second,
                            size_t second_len, const char *const *markers, int n)
{
    /* Longer than 15 bytes: a heap string in Swift, not an inline one. */
    char account[96];
    snprintf(account, sizeof account, "freed-blocks-witness-%ld", (long)getpid());
    const char *svc = kt_service();

    fh_scan(markers, n, account);
    kk_keychain *kc = kt_open();
    if (kc != NULL) {
        CHECK_STATUS(kk_set(kc, svc, account, first, first_len), KK_OK);   /* insert */
        CHECK_VALUE(kc, svc, account, first, first_len);  /* kk_get, kk_secret_free */
        CHECK_STATUS(kk_set(kc, svc, account, second, second_len), KK_OK); /* replace */
        CHECK_VALUE(kc, svc, account, second, second_len);
        CHECK_STATUS(kk_remove(kc, svc, account), KK_OK);
        CHECK_ABSENT(kc, svc, account);
        kk_close(kc);
    }
    fh_scan_result r = fh_scan_stop();

    printf("    %d blocks freed (%d reallocs) searched; %d held the witness\n", r.frees, r.reallocs,
           r.blocks_with_witness);
    CHECK(kc != NULL);
    CHECK(r.frees > 0); /* the library's frees reached the hook */
    if (kt_current_backend() == KT_SECRET_SERVICE)
        CHECK(r.blocks_with_witness > 0); /* D-Bus messages were among them */
    if (!CHECK_EQ(r.blocks_with_marker, 0)) fh_print_origin(&r);
}

TEST(free_hook_finds_a_marker_in_a_freed_block)
{
    char m[128];
    const char *markers[] = {hy_marker(m, sizeof m, "control")};
    size_t len = strlen(m);

    /* free() of a block holding it. */
    char *block = malloc(len + 1);
    REQUIRE(block != NULL);
    memcpy(block, m, len + 1);
    fh_scan(markers, 1, NULL);
    free(block);
    fh_scan_result r = fh_scan_stop();
    CHECK_EQ(r.blocks_with_marker, 1);
    CHECK_EQ(r.by_realloc, 0);
    CHECK_EQ(r.size >= len + 1, 1);

    /* realloc() moving it: 64 bytes to 1 MiB (above the mmap threshold) must
     * move, leaving the old block as it was. */
    block = malloc(64);
    REQUIRE(block != NULL);
    memcpy(block, m, len + 1);
    fh_scan(markers, 1, NULL);
    char *bigger = realloc(block, 1024 * 1024);
    r = fh_scan_stop();
    REQUIRE(bigger != NULL);
    CHECK(bigger != block);
    CHECK_EQ(r.blocks_with_marker, 1);
    CHECK_EQ(r.by_realloc, 1);
    free(bigger);
}

TEST(freed_blocks_never_hold_the_secret)
{
    char a[128], b[160];
    hy_marker(a, sizeof a, "first");
    hy_marker(b, sizeof b, "replacement");
    /* The replacement is not UTF-8: the other content type. */
    char second[200];
    second[0] = '\xFF';
    memcpy(second + 1, b, strlen(b) + 1);
    const char *markers[] = {a, b};
    check_item_life(a, strlen(a), second, strlen(b) + 1, markers, 2);
}

TEST_ON(KT_ANY_SIZE, freed_blocks_never_hold_a_large_secret)
{
    /* 256 KiB: above glibc's mmap threshold, growing D-Bus messages and
     * byte arrays through other paths. Markers at both ends of each value. */
    size_t len = 256 * 1024;
    char *first = malloc(len), *second = malloc(len);
    REQUIRE(first != NULL && second != NULL);
    char m1[128], m2[128], m3[128], m4[128];
    const char *markers[] = {hy_marker(m1, sizeof m1, "large-first-head"),
                             hy_marker(m2, sizeof m2, "large-first-tail"),
                             hy_marker(m3, sizeof m3, "large-second-head"),
                             hy_marker(m4, sizeof m4, "large-second-tail")};
    for (size_t i = 0; i < len; i++) {
        first[i] = (char)('a' + i % 26);
        second[i] = (char)('A' + i % 26);
    }
    memcpy(first, m1, strlen(m1));
    memcpy(first + len - strlen(m2), m2, strlen(m2));
    memcpy(second, m3, strlen(m3));
    memcpy(second + len - strlen(m4), m4, strlen(m4));
    check_item_life(first, len, second, len, markers, 4);
    free(first); /* after the scan: the test's own copies */
    free(second);
}
