/* SPDX-License-Identifier: MIT */
/*
 * test_bounded_memory.c — reading keys that do not exist costs constant
 * memory: whatever the library remembers per key (the Observation key
 * paths of a Keychain, the Secret Service item-path cache) is bounded.
 *
 * Reads many distinct absent keys through one handle and checks that the
 * process's resident set (/proc/self/statm) grew by less than a limit
 * between a warm-up (which fills the bounded caches and the allocator's
 * pools) and the end. Prints the growth it measured.
 *
 * - memory: 600,000 keys, limit 16 MiB. Per-key state of a few hundred
 *   bytes (an unbounded key-path cache: ~214 bytes a key with short
 *   accounts, ~400 with these) grows 120 to 230 MiB.
 * - Secret Service: 12,000 keys (each a D-Bus round trip), limit 2 MiB:
 *   the same per-key state grows only 2.5 to 5 MiB over so few keys, which
 *   16 MiB would let through. A bounded library grows ~0.1 MiB here.
 */
#include "kt_keychain.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define MiB ((long)1024 * 1024)

/** The resident set size in bytes, or -1. */
static long resident_bytes(void)
{
    FILE *f = fopen("/proc/self/statm", "r");
    if (f == NULL) return -1;
    long size = 0, resident = -1;
    if (fscanf(f, "%ld %ld", &size, &resident) != 2) resident = -1;
    fclose(f);
    return resident < 0 ? -1 : resident * sysconf(_SC_PAGESIZE);
}

/** Reads keys `from` to `to` - 1 (none of which exists); returns how many
 *  reads did not answer KK_ENOTFOUND. Accounts are longer than 15 bytes,
 *  so that a Swift string of one would not fit inline. */
static long read_absent(kk_keychain *kc, long from, long to)
{
    long wrong = 0;
    char account[64];
    for (long i = from; i < to; i++) {
        snprintf(account, sizeof account, "absent-account-%08ld", i);
        char *value = NULL;
        size_t len = 0;
        kk_status status = kk_get(kc, kt_service(), account, &value, &len);
        if (status != KK_ENOTFOUND) {
            if (wrong++ == 0) kt_check_status(status, KK_ENOTFOUND, __FILE__, __LINE__, "kk_get of an absent key");
            if (status == KK_OK) kk_secret_free(value);
        }
    }
    return wrong;
}

/** Warms up with `warmup` keys, then reads `keys` others and checks that
 *  the resident set grew by less than `limit` bytes over those. */
static void check_bounded(long warmup, long keys, long limit)
{
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    CHECK_EQ(read_absent(kc, 0, warmup), 0);
    long before = resident_bytes();
    double start = kt_now();
    CHECK_EQ(read_absent(kc, warmup, warmup + keys), 0);
    double seconds = kt_now() - start;
    long after = resident_bytes();
    kk_close(kc);

    REQUIRE(CHECK(before > 0 && after > 0));
    long growth = after - before;
    printf("    %ld absent keys (after %ld to warm up) in %.1f s: RSS %.1f -> %.1f MiB, "
           "growth %.2f MiB (%.1f bytes/key), limit %ld MiB\n",
           keys, warmup, seconds, before / 1048576.0, after / 1048576.0, growth / 1048576.0,
           (double)growth / (double)keys, limit / MiB);
    kt_check(growth < limit, __FILE__, __LINE__,
             "reading %ld absent keys grew the resident set by %ld bytes (%.1f per key), "
             "limit %ld: per-key state is not bounded",
             keys, growth, (double)growth / (double)keys, limit);
}

TEST_ON(KT_MEMORY, reading_600000_absent_keys_keeps_memory_bounded)
{
    check_bounded(20000, 600000, 16 * MiB);
}

TEST_ON(KT_SECRET_SERVICE, reading_12000_absent_keys_keeps_memory_bounded)
{
    /* More than the item-path cache's 4096 entries to warm up. */
    check_bounded(5000, 12000, 2 * MiB);
}
