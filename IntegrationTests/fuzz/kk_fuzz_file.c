/* SPDX-License-Identifier: MIT */
/*
 * kk_fuzz_file.c — a libFuzzer harness for the file store (kk_open_file):
 * each input is the whole of a keyring file (libsecret's file format:
 * "GnomeKeyring\n\r\0\n", 01 00, then the GVariant (uayutua(a{say}ay)); see
 * Sources/KeychainKitFileStore/KeyringFile.swift), read with the fixed
 * master secret "fuzz-master" (the seeds of corpus-file/ are sealed with it).
 *
 * Each input is written, mode 0600, into a private directory (mkdtemp,
 * 0700: $TMPDIR, else /dev/shm, else /tmp) and read two ways:
 *
 * 1. The live handle: one handle, opened once on live.keyring, sees the
 *    input renamed over its file (a new inode, a unique mtime) and reads it
 *    again at its next call (the reload another process's write causes).
 *    The key (100,000 PBKDF2 rounds: ~30 ms, ~50 ms under ASan, which
 *    intercepts libgcrypt's memcpy) is derived once per salt and
 *    iteration count, and every seed shares one salt: most inputs cost no
 *    derivation at all.
 * 2. A fresh kk_open_file on open.keyring: for every input whose reload
 *    failed as KK_ECORRUPT (the parse failed before any key derivation:
 *    cheap), and for 1 in KK_FUZZ_FILE_OPEN_EVERY (default 16) of the others
 *    (chosen by a hash of the input, so a saved input reproduces), since
 *    each of those costs a derivation. Its status must equal the reload's.
 *
 * Asserted (abort on violation):
 * - kk_open_file and the reload return only KK_OK, KK_ECORRUPT or
 *   KK_EWRONGKEY, the same for both;
 * - on failure: kk_error_message() is non-empty and does not contain the
 *   master; *out is not written; the file's bytes are the input's; a kk_get
 *   and a kk_set through the handle fail with the same status (never
 *   answered from the contents of an earlier input, never writing);
 * - on success: kk_list("svc") is a NULL-terminated array of *out_count
 *   valid UTF-8 accounts sorted by bytes, without duplicates; each listed
 *   account reads (KK_OK), "alice" and "" read KK_OK exactly when listed,
 *   KK_ENOTFOUND otherwise, and kk_exists agrees; reading leaves the file
 *   as it is and creates no lock file;
 * - one kk_set (account "", "fuzz", "alice" or "\xC3\xA9"; a value taken
 *   from the input, NULs included) either returns KK_OK, after which kk_get
 *   returns exactly the value and kk_list holds the account, and the file
 *   written reads back the same value through the live handle (our writer
 *   against our parser); or fails cleanly: a message, the file unchanged,
 *   the old value still read;
 * - no file but live.keyring and its ".lock" stays in the directory after an
 *   input (the library's "<path>.XXXXXX" temporaries are removed);
 * - no crash (ASan/UBSan see the harness and every allocation), no hang
 *   (libFuzzer's -timeout).
 *
 * Environment:
 *   KK_FUZZ_FILE_EXPECT=OK|ECORRUPT|EWRONGKEY  kk_open_file must return
 *       this status: first alone, before the reload, then as the fresh open
 *       (always made); run.sh sets it for regressions-file/ from the name.
 *   KK_FUZZ_FILE_OPEN_EVERY=N  a fresh open for 1 in N inputs that parse
 *       (1: every input; slow, ~30 ms each).
 *   KK_FUZZ_FILE_MAX_ROUNDS=N  skip inputs whose iteration count (as the
 *       parser would read it) exceeds N: to fuzz past the open "unbounded
 *       PBKDF2 rounds" hang (regressions-file/README); CI leaves it unset.
 *   KK_FUZZ_TRACE=1  print each input's statuses to stderr.
 */
#define _GNU_SOURCE
#include <keychainkit.h>

#define FUZZ_NAME "kk_fuzz_file"
#include "fuzz_expect.h"
#include "fuzz_utf8.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ---- divergence reporting ---------------------------------------------- */

/** A failure of the harness itself (not of the library): a system call. */
#define HARNESS(cond, what)                                                           \
    do {                                                                              \
        if (!(cond)) {                                                                \
            fprintf(stderr, "kk_fuzz_file: %s: %s\n", (what), strerror(errno));       \
            abort();                                                                  \
        }                                                                             \
    } while (0)

/** With KK_FUZZ_TRACE=1: a line to stderr, after the milliseconds since start. */
#define TRACE(...)                                                   \
    do {                                                             \
        if (trace) {                                                 \
            fprintf(stderr, "[%8.1f ms]", elapsed_ms());             \
            fprintf(stderr, __VA_ARGS__);                            \
        }                                                            \
    } while (0)

static double elapsed_ms(void)
{
    static struct timespec start;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (start.tv_sec == 0) start = now;
    return (double)(now.tv_sec - start.tv_sec) * 1e3 + (double)(now.tv_nsec - start.tv_nsec) / 1e6;
}

static const char MASTER[] = "fuzz-master";
#define MASTER_LEN (sizeof MASTER - 1)

static char dir[4096];
static char live_path[4200], live_tmp[4200], fresh_path[4200], fresh_lock[4200];
static kk_keychain *live;
static unsigned long open_every = 16;
static unsigned long long max_rounds; /* 0: no limit */
static int have_expect;
static kk_status expect;
static int trace;
static long long stamp_counter;

static const char *status_name(kk_status st)
{
    switch (st) {
    case KK_OK: return "OK";
    case KK_ENOTFOUND: return "ENOTFOUND";
    case KK_EDUPLICATE: return "EDUPLICATE";
    case KK_ELOCKED: return "ELOCKED";
    case KK_EDENIED: return "EDENIED";
    case KK_EUNAVAILABLE: return "EUNAVAILABLE";
    case KK_ECANCELED: return "ECANCELED";
    case KK_EINVAL: return "EINVAL";
    case KK_ENOMEM: return "ENOMEM";
    case KK_EUNKNOWN: return "EUNKNOWN";
    case KK_EWRONGKEY: return "EWRONGKEY";
    case KK_ENOKEY: return "ENOKEY";
    case KK_ECORRUPT: return "ECORRUPT";
    default: return "(unknown status)";
    }
}

/* ---- feedback ----------------------------------------------------------- */

/* The library is not instrumented, so the harness' own branches are all the
 * coverage libFuzzer sees. These counters (libFuzzer's extra counters, reset
 * before each input) add what the library said: each status with its
 * message (digits and the temporary path left out, so "a framing offset
 * past its container" and "a string without its NUL" are two features, "a
 * u of 3 bytes" and "a u of 5 bytes" one), and the shape of what a
 * successful read listed. An input that makes the parser fail in a new way
 * is kept in the corpus. */
#define FEATURES 4096
__attribute__((used, section("__libfuzzer_extra_counters"))) static uint8_t features[FEATURES];

static void feature(uint64_t h)
{
    uint8_t *c = &features[h % FEATURES];
    if (*c < 255) (*c)++;
}

/** Marks the status and message of a call (`tag` tells the calls apart). */
static void feature_of(unsigned tag, kk_status st)
{
    uint64_t h = 0xcbf29ce484222325ULL ^ tag ^ ((uint64_t)(uint32_t)st << 8);
    if (st != KK_OK) {
        const char *m = kk_error_message();
        size_t skip = strlen(dir);
        for (const char *c = m ? m : ""; *c; c++) {
            if (skip && strncmp(c, dir, skip) == 0) { c += skip - 1; continue; }
            if (*c >= '0' && *c <= '9') continue;
            h = (h ^ (unsigned char)*c) * 0x100000001b3ULL;
        }
    }
    feature(h);
}


/* ---- files -------------------------------------------------------------- */

/** Writes `size` bytes to a new file `path` of mode 0600. With `unique`,
 *  its mtime is one no earlier file of this process had, so the live
 *  handle's stat stamp always sees a new version (a freed inode number may
 *  come back, and tmpfs times are coarse). */
static void write_file(const char *path, const uint8_t *data, size_t size, int unique)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    HARNESS(fd >= 0, path);
    size_t done = 0;
    while (done < size) {
        ssize_t n = write(fd, data + done, size - done);
        if (n < 0 && errno == EINTR) continue;
        HARNESS(n > 0, "write");
        done += (size_t)n;
    }
    if (unique) {
        struct timespec times[2];
        ++stamp_counter;
        times[0].tv_sec = times[1].tv_sec = 1000000000 + stamp_counter / 1000000;
        times[0].tv_nsec = times[1].tv_nsec = (stamp_counter % 1000000) * 1000 + 7;
        HARNESS(futimens(fd, times) == 0, "futimens");
    }
    HARNESS(fchmod(fd, 0600) == 0, "fchmod"); /* whatever the umask */
    HARNESS(close(fd) == 0, "close");
}

/** Reads the whole file at `path` into a new buffer; NULL when absent. */
static uint8_t *read_file(const char *path, size_t *size)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0 && errno == ENOENT) return NULL;
    HARNESS(fd >= 0, path);
    struct stat st;
    HARNESS(fstat(fd, &st) == 0, "fstat");
    uint8_t *buf = malloc((size_t)st.st_size + 1);
    HARNESS(buf != NULL, "malloc");
    size_t done = 0;
    for (;;) {
        ssize_t n = read(fd, buf + done, (size_t)st.st_size - done);
        if (n < 0 && errno == EINTR) continue;
        HARNESS(n >= 0, "read");
        if (n == 0 || (done += (size_t)n) == (size_t)st.st_size) break;
    }
    close(fd);
    *size = done;
    return buf;
}

/** Replaces live.keyring with the bytes (a rename: a new inode). */
static void put_live(const uint8_t *data, size_t size)
{
    unlink(live_tmp);
    write_file(live_tmp, data, size, 1);
    HARNESS(rename(live_tmp, live_path) == 0, "rename to live.keyring");
}

static void expect_file(const char *path, const uint8_t *data, size_t size, const char *what)
{
    size_t got_size = 0;
    uint8_t *got = read_file(path, &got_size);
    EXPECT(got != NULL, "%s: %s no longer exists", what, path);
    EXPECT(got_size == size && memcmp(got, data, size) == 0,
           "%s: the file's bytes changed (%zu bytes before, %zu after)", what, size, got_size);
    free(got);
}

static int exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

/** Every name in the directory is live.keyring, its .lock, or `allowed`. */
static void expect_no_strays(const char *allowed)
{
    DIR *d = opendir(dir);
    HARNESS(d != NULL, dir);
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        const char *n = e->d_name;
        if (strcmp(n, ".") == 0 || strcmp(n, "..") == 0 || strcmp(n, "live.keyring") == 0 ||
            strcmp(n, "live.keyring.lock") == 0 || (allowed && strcmp(n, allowed) == 0))
            continue;
        FAILF("%s was left in the directory", n);
    }
    closedir(d);
}

/* ---- checks ------------------------------------------------------------- */

/** A failed call: a message without the master secret. */
static void expect_message(kk_status st, const char *what)
{
    const char *m = kk_error_message();
    EXPECT(m != NULL && m[0] != '\0', "%s failed with %s but kk_error_message() is empty", what, status_name(st));
    EXPECT(strstr(m, MASTER) == NULL, "%s: kk_error_message() holds the master secret: \"%s\"", what, m);
}

static int file_status(kk_status st)
{
    return st == KK_OK || st == KK_ECORRUPT || st == KK_EWRONGKEY;
}

/** Reads through a handle that opened (or reloaded) the input. */
static void check_reads(kk_keychain *kc, const char *what)
{
    char **accounts = NULL;
    size_t count = 0x5eed;
    kk_status st = kk_list(kc, "svc", &accounts, &count);
    EXPECT(st == KK_OK, "%s: kk_list returned %s after a successful read (%s)", what, status_name(st),
           kk_error_message());
    EXPECT(accounts != NULL, "%s: kk_list returned KK_OK and no array", what);
    size_t n = 0;
    while (accounts[n] != NULL) n++;
    EXPECT(n == count, "%s: kk_list: %zu accounts in the array, *out_count %zu", what, n, count);
    int alice = 0, empty = 0;
    for (size_t i = 0; i < n; i++) {
        EXPECT(valid_utf8((const unsigned char *)accounts[i]), "%s: kk_list: account %zu is not UTF-8", what, i);
        if (i > 0)
            EXPECT(strcmp(accounts[i - 1], accounts[i]) < 0, "%s: kk_list: accounts %zu and %zu out of byte order "
                   "or repeated", what, i - 1, i);
        if (strcmp(accounts[i], "alice") == 0) alice = 1;
        if (accounts[i][0] == '\0') empty = 1;
        if (i < 8) {
            char *value = NULL;
            size_t len = 0;
            st = kk_get(kc, "svc", accounts[i], &value, &len);
            EXPECT(st == KK_OK, "%s: kk_get of listed account %zu returned %s", what, i, status_name(st));
            EXPECT(value != NULL && value[len] == '\0', "%s: kk_get: value not NUL-terminated", what);
            kk_secret_free(value);
        }
    }
    kk_list_free(accounts);
    feature(0x4000 + (n < 15 ? n : 15) * 4 + (size_t)alice * 2 + (size_t)empty);

    const char *probe[2] = {"alice", ""};
    int listed[2] = {alice, empty};
    for (int i = 0; i < 2; i++) {
        char *value = (char *)&value;
        size_t len = 0x5eed;
        st = kk_get(kc, "svc", probe[i], &value, &len);
        EXPECT(st == (listed[i] ? KK_OK : KK_ENOTFOUND), "%s: kk_get(\"svc\", \"%s\") returned %s, the list says "
               "%s", what, probe[i], status_name(st), listed[i] ? "present" : "absent");
        if (st == KK_OK) {
            EXPECT(value != NULL && value[len] == '\0', "%s: kk_get: value not NUL-terminated", what);
            kk_secret_free(value);
        } else {
            EXPECT(value == NULL, "%s: kk_get failed but left *out_value set", what);
            EXPECT(len == 0x5eed, "%s: kk_get failed but wrote *out_len", what);
            expect_message(st, "kk_get");
        }
        st = kk_exists(kc, "svc", probe[i]);
        EXPECT(st == (listed[i] ? KK_OK : KK_ENOTFOUND), "%s: kk_exists(\"svc\", \"%s\") returned %s", what,
               probe[i], status_name(st));
    }
    /* Another service: only what the file holds (none of the seeds has it). */
    st = kk_list(kc, "kk-fuzz-none", &accounts, &count);
    EXPECT(st == KK_OK, "%s: kk_list of another service returned %s", what, status_name(st));
    kk_list_free(accounts);
    TRACE("  %s: reads checked\n", what);
}

/** A handle whose read failed with `want`: reads and writes through it fail
 *  alike and change nothing. */
static void check_failed_handle(kk_keychain *kc, kk_status want, const char *path, const uint8_t *data,
                                size_t size, const char *what)
{
    char *value = (char *)&value;
    kk_status st = kk_get(kc, "svc", "alice", &value, NULL);
    EXPECT(st == want, "%s: kk_get returned %s on a file that read as %s (an earlier input's contents?)", what,
           status_name(st), status_name(want));
    EXPECT(value == NULL, "%s: kk_get failed but left *out_value set", what);
    expect_message(st, "kk_get");
    st = kk_set(kc, "svc", "alice", "overwrite?", 10);
    EXPECT(st == want, "%s: kk_set returned %s on a file that read as %s", what, status_name(st), status_name(want));
    expect_message(st, "kk_set");
    expect_file(path, data, size, "kk_set on a file that does not read");
}

/** One kk_set + kk_get round trip through a handle that read the input
 *  (the file at `path` holds `data`). Returns 1 when the set succeeded. */
static int check_set(kk_keychain *kc, const char *path, const uint8_t *data, size_t size, uint64_t h,
                     const char *what, const char **account_out, const uint8_t **value_out, size_t *len_out)
{
    static const char *const accounts[] = {"", "fuzz", "alice", "\xC3\xA9"};
    const char *account = accounts[h % 4];
    size_t len = (h >> 2) % 5 == 0 ? 0 : (size_t)((h >> 5) % 48);
    if (len > size) len = size;
    const uint8_t *value = len ? data + (size - len) : NULL; /* the input's tail, NULs and all */

    char *before = NULL;
    size_t before_len = 0;
    kk_status before_st = kk_get(kc, "svc", account, &before, &before_len);
    EXPECT(before_st == KK_OK || before_st == KK_ENOTFOUND, "%s: kk_get before kk_set returned %s", what,
           status_name(before_st));

    kk_status st = kk_set(kc, "svc", account, value, len);
    feature_of(3, st);
    TRACE("  %s: kk_set(\"svc\", \"%s\", %zu bytes) -> %s\n", what, account, len, status_name(st));
    char *got = NULL;
    size_t got_len = 0;
    kk_status got_st = kk_get(kc, "svc", account, &got, &got_len);
    if (st == KK_OK) {
        EXPECT(got_st == KK_OK, "%s: kk_get after a successful kk_set returned %s", what, status_name(got_st));
        EXPECT(got_len == len && (len == 0 || memcmp(got, value, len) == 0) && got[len] == '\0',
               "%s: kk_get after kk_set read %zu other bytes (set %zu)", what, got_len, len);
        char **list = NULL;
        size_t n = 0;
        EXPECT(kk_list(kc, "svc", &list, &n) == KK_OK, "%s: kk_list after kk_set failed", what);
        int found = 0;
        for (size_t i = 0; i < n; i++) found |= strcmp(list[i], account) == 0;
        EXPECT(found, "%s: kk_list after kk_set of \"%s\" does not hold it", what, account);
        kk_list_free(list);
    } else {
        EXPECT(st != KK_EINVAL, "%s: kk_set of valid arguments returned KK_EINVAL", what);
        expect_message(st, "kk_set");
        expect_file(path, data, size, "a failed kk_set");
        EXPECT(got_st == before_st, "%s: kk_get after a failed kk_set returned %s, before %s", what,
               status_name(got_st), status_name(before_st));
        if (got_st == KK_OK)
            EXPECT(got_len == before_len && memcmp(got, before, got_len) == 0,
                   "%s: a failed kk_set changed the value read", what);
    }
    kk_secret_free(got);
    kk_secret_free(before);
    *account_out = account;
    *value_out = value;
    *len_out = len;
    return st == KK_OK;
}

/** The file a successful kk_set wrote, at `path`, read again through the
 *  live handle: our writer's bytes against our parser. */
static void check_written(const char *path, const char *account, const uint8_t *value, size_t len,
                          const char *what)
{
    size_t size = 0;
    uint8_t *written = read_file(path, &size);
    EXPECT(written != NULL, "%s: the file is gone after kk_set", what);
    put_live(written, size);
    free(written);
    char *got = NULL;
    size_t got_len = 0;
    kk_status st = kk_get(live, "svc", account, &got, &got_len);
    EXPECT(st == KK_OK, "%s: the file kk_set wrote reads as %s (%s)", what, status_name(st),
           st ? kk_error_message() : "");
    EXPECT(got_len == len && (len == 0 || memcmp(got, value, len) == 0),
           "%s: the file kk_set wrote reads back %zu other bytes (set %zu)", what, got_len, len);
    kk_secret_free(got);
    TRACE("  %s: the written file reads back\n", what);
    check_reads(live, what);
}

/* ---- the input ---------------------------------------------------------- */

static uint64_t fnv1a(const uint8_t *data, size_t size)
{
    uint64_t h = 0xcbf29ce484222325ULL;
    for (size_t i = 0; i < size; i++) h = (h ^ data[i]) * 0x100000001b3ULL;
    return h;
}

/** The PBKDF2 iteration count where the parser finds it: the body's first
 *  framing offset (the salt's end) rounded up to 4. 0 when out of bounds. */
static uint32_t rounds_of(const uint8_t *data, size_t size)
{
    if (size <= 18) return 0;
    const uint8_t *body = data + 18;
    size_t n = size - 18;
    size_t w = n > 0xFFFFFFFFu ? 8 : n > 0xFFFF ? 4 : n > 0xFF ? 2 : 1;
    if (n < w) return 0;
    uint64_t end = 0;
    for (size_t i = 0; i < w; i++) end |= (uint64_t)body[n - w + i] << (8 * i);
    uint64_t at = (end + 3) & ~(uint64_t)3;
    if (at + 4 > n) return 0;
    return (uint32_t)body[at] | (uint32_t)body[at + 1] << 8 | (uint32_t)body[at + 2] << 16 |
           (uint32_t)body[at + 3] << 24;
}

/* kk_open_file of `path` with the harness's master secret. */
static kk_status open_with_master(const char *path, kk_keychain **out)
{
    kk_file_options options = KK_FILE_OPTIONS_INIT;
    options.path = path;
    options.master_source = KK_MASTER_SECRET;
    options.master = (const unsigned char *)MASTER;
    options.master_len = MASTER_LEN;
    options.lock_timeout_ms = 2000;
    return kk_open_file(&options, out);
}

static kk_status open_fresh(kk_keychain **out)
{
    return open_with_master(fresh_path, out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    uint64_t h = fnv1a(data, size);
    if (max_rounds && rounds_of(data, size) > max_rounds) return 0;
    TRACE("---- input of %zu bytes (rounds field %u)\n", size, rounds_of(data, size));

    /* 0. KK_FUZZ_FILE_EXPECT (a regression): kk_open_file first, on its own. */
    if (have_expect) {
        unlink(fresh_path);
        write_file(fresh_path, data, size, 0);
        kk_keychain *kc = NULL;
        kk_status st = open_fresh(&kc);
        TRACE("  kk_open_file (alone) -> %s%s%s\n", status_name(st), st ? ": " : "", st ? kk_error_message() : "");
        EXPECT(st == expect, "kk_open_file returned %s (%s), expected %s", status_name(st),
               st ? kk_error_message() : "", status_name(expect));
        kk_close(kc);
        unlink(fresh_path);
    }

    /* 1. The live handle reads the input as a new version of its file. */
    put_live(data, size);
    char **accounts = NULL;
    kk_status live_st = kk_list(live, "svc", &accounts, NULL);
    TRACE("  reload -> %s%s%s\n", status_name(live_st), live_st ? ": " : "", live_st ? kk_error_message() : "");
    feature_of(1, live_st);
    EXPECT(file_status(live_st), "the reload returned %s (%s): only OK, ECORRUPT, EWRONGKEY", status_name(live_st),
           kk_error_message());
    kk_list_free(accounts);
    int live_set = 0;
    const char *set_account = NULL;
    const uint8_t *set_value = NULL;
    size_t set_len = 0;
    if (live_st != KK_OK) {
        expect_message(live_st, "the reload");
        expect_file(live_path, data, size, "a failed reload");
        check_failed_handle(live, live_st, live_path, data, size, "the live handle");
    } else {
        expect_file(live_path, data, size, "a reload");
        check_reads(live, "the live handle");
    }

    /* 2. A fresh open, when cheap or sampled. */
    int fresh = have_expect || live_st == KK_ECORRUPT || open_every <= 1 || (h >> 32) % open_every == 0;
    if (fresh) {
        unlink(fresh_path);
        unlink(fresh_lock);
        write_file(fresh_path, data, size, 0);
        kk_keychain *kc = (kk_keychain *)&kc;
        kk_status st = open_fresh(&kc);
        feature_of(2, st);
        TRACE("  kk_open_file -> %s%s%s\n", status_name(st), st ? ": " : "", st ? kk_error_message() : "");
        EXPECT(file_status(st), "kk_open_file returned %s (%s): only OK, ECORRUPT, EWRONGKEY", status_name(st),
               kk_error_message());
        if (have_expect)
            EXPECT(st == expect, "kk_open_file returned %s (%s), expected %s", status_name(st),
                   st ? kk_error_message() : "", status_name(expect));
        EXPECT(st == live_st, "kk_open_file returned %s, the reload of the same bytes %s", status_name(st),
               status_name(live_st));
        if (st != KK_OK) {
            EXPECT(kc == (kk_keychain *)&kc, "kk_open_file failed but wrote *out");
            expect_message(st, "kk_open_file");
            expect_file(fresh_path, data, size, "a failed kk_open_file");
            EXPECT(!exists(fresh_lock), "a failed kk_open_file created the lock file");
        } else {
            EXPECT(kc != NULL && kc != (kk_keychain *)&kc, "kk_open_file returned KK_OK and no handle");
            kk_persistence p;
            EXPECT(kk_persistence_of(kc, &p) == KK_OK && p == KK_PERSISTENT, "a file handle is not KK_PERSISTENT");
            check_reads(kc, "a fresh handle");
            expect_file(fresh_path, data, size, "reading through a fresh handle");
            EXPECT(!exists(fresh_lock), "reading through a fresh handle created the lock file");
            int ok = check_set(kc, fresh_path, data, size, h, "a fresh handle", &set_account, &set_value, &set_len);
            kk_close(kc);
            if (ok) check_written(fresh_path, set_account, set_value, set_len, "a fresh handle's kk_set");
        }
        unlink(fresh_path);
        unlink(fresh_lock);
    }

    /* 3. Without a fresh handle that read it: the round trip through the live one. */
    if (live_st == KK_OK && !(fresh && set_account != NULL)) {
        live_set = check_set(live, live_path, data, size, h, "the live handle", &set_account, &set_value, &set_len);
        if (live_set) check_written(live_path, set_account, set_value, set_len, "the live handle's kk_set");
    }
    expect_no_strays(NULL);
    return 0;
}

/* ---- setup -------------------------------------------------------------- */

static void cleanup(void)
{
    if (live != NULL) kk_close(live);
    live = NULL;
    if (dir[0] == '\0') return;
    unlink(live_path);
    unlink(live_tmp);
    unlink(fresh_path);
    unlink(fresh_lock);
    char lock[4300];
    snprintf(lock, sizeof lock, "%s.lock", live_path);
    unlink(lock);
    rmdir(dir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    const char *t = getenv("KK_FUZZ_TRACE");
    trace = t != NULL && strcmp(t, "1") == 0;
    const char *every = getenv("KK_FUZZ_FILE_OPEN_EVERY");
    if (every && *every) open_every = strtoul(every, NULL, 10);
    const char *rounds = getenv("KK_FUZZ_FILE_MAX_ROUNDS");
    if (rounds && *rounds) {
        max_rounds = strtoull(rounds, NULL, 10);
        fprintf(stderr, "kk_fuzz_file: KK_FUZZ_FILE_MAX_ROUNDS=%llu: inputs with more rounds are skipped\n",
                max_rounds);
    }
    const char *want = getenv("KK_FUZZ_FILE_EXPECT");
    if (want && *want) {
        have_expect = 1;
        if (strncmp(want, "KK_", 3) == 0) want += 3;
        if (strcmp(want, "OK") == 0) expect = KK_OK;
        else if (strcmp(want, "ECORRUPT") == 0) expect = KK_ECORRUPT;
        else if (strcmp(want, "EWRONGKEY") == 0) expect = KK_EWRONGKEY;
        else {
            fprintf(stderr, "kk_fuzz_file: KK_FUZZ_FILE_EXPECT=%s: not OK, ECORRUPT or EWRONGKEY\n", want);
            exit(2);
        }
    }

    const char *base = getenv("TMPDIR");
    struct stat st;
    if (base == NULL || *base == '\0')
        base = stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) && access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
    snprintf(dir, sizeof dir, "%s/kk_fuzz_file.XXXXXX", base);
    HARNESS(mkdtemp(dir) != NULL, "mkdtemp"); /* mode 0700 */
    snprintf(live_path, sizeof live_path, "%s/live.keyring", dir);
    snprintf(live_tmp, sizeof live_tmp, "%s/live.new", dir);
    snprintf(fresh_path, sizeof fresh_path, "%s/open.keyring", dir);
    snprintf(fresh_lock, sizeof fresh_lock, "%s/open.keyring.lock", dir);
    atexit(cleanup);

    /* The live handle: its file does not exist yet (an open that derives
     * nothing); each input then becomes its file. */
    kk_status s = open_with_master(live_path, &live);
    if (s != KK_OK) {
        fprintf(stderr, "kk_fuzz_file: kk_open_file of a new file returned %s: %s\n", status_name(s),
                kk_error_message());
        exit(2);
    }
    return 0;
}
