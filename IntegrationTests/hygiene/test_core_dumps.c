/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
/*
 * test_core_dumps.c — a program that crashes while it holds a value kk_get()
 * returned leaves no secret in its core file: the library hands values out
 * in memory excluded from dumps (MADV_DONTDUMP), as libsecret's secure
 * memory is.
 *
 * A child waits until the parent has stored a marker made after the fork
 * (so the child's memory never held it but through the library), reads it
 * with kk_get() on a handle of its own and aborts with core dumps allowed;
 * the parent searches the core for the marker. A control child copies the
 * value to the heap first: its core must hold the marker, or the search
 * proves nothing. On the Secret Service, where the library keeps no value of
 * its own, and on the file store, which keeps its decrypted items and the
 * master secret in the same memory while a handle is open: the core holds
 * neither, nor the file's key (the memory backend keeps its values in
 * ordinary memory).
 */
#include "kt_keychain.h"
#include "markers.h"

#include <dirent.h>
#include <gcrypt.h>
#include <stdint.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/** Reads the first core file in `directory` into memory; NULL when none. */
static char *read_core(const char *directory, size_t *size)
{
    DIR *dir = opendir(directory);
    if (dir == NULL) return NULL;
    char path[600] = "";
    struct dirent *entry;
    while ((entry = readdir(dir)) != NULL) {
        if (strncmp(entry->d_name, "core", 4) == 0) {
            snprintf(path, sizeof path, "%s/%s", directory, entry->d_name);
            break;
        }
    }
    closedir(dir);
    FILE *file = path[0] ? fopen(path, "rb") : NULL;
    if (file == NULL) return NULL;
    struct stat st;
    char *data = fstat(fileno(file), &st) == 0 ? malloc((size_t)st.st_size + 1) : NULL;
    *size = data ? fread(data, 1, (size_t)st.st_size, file) : 0;
    fclose(file);
    unlink(path);
    return data;
}

/** The child's own handle: on the Secret Service as any client opens one;
 *  on the file store, of the keyring file at `path` with the master secret
 *  the parent sends down `go` after the start byte, wiped once passed (so
 *  the child's memory holds it only where the library keeps it). */
static kk_status open_own(int go, const char *path, kk_keychain **own)
{
    if (kt_current_backend() != KT_FILE) return kk_open_secret_service(own);
    char master[128];
    ssize_t got = read(go, master, sizeof master);
    if (got <= 0) return KK_EINVAL;
    kk_file_options options = KK_FILE_OPTIONS_INIT;
    options.path = path;
    options.master_source = KK_MASTER_SECRET;
    options.master = (const unsigned char *)master;
    options.master_len = (size_t)got;
    kk_status status = kk_open_file(&options, own);
    explicit_bzero(master, sizeof master);
    return status;
}

/** Derives the key of the keyring file at `path` from `master` into `key`
 *  (16 bytes), as libsecret does: PBKDF2-HMAC-SHA256 over the salt and
 *  rounds the file's header gives (`(u salt_len, ay salt, u rounds, ...)`
 *  after the 18 bytes of magic and version, little-endian); 0 on success.
 *  The first 16 bytes of AES's expanded key are the key itself, so a search
 *  for it finds libgcrypt's key schedule too. */
static int derive_file_key(const char *path, const char *master, unsigned char key[16])
{
    if (gcry_check_version(NULL) == NULL) return -1;
    unsigned char header[18 + 4 + 256 + 8];
    FILE *file = fopen(path, "rb");
    size_t got = file ? fread(header, 1, sizeof header, file) : 0;
    if (file) fclose(file);
    if (got < 18 + 4) return -1;
    const unsigned char *body = header + 18;
    uint32_t salt_length = body[0] | body[1] << 8 | body[2] << 16 | (uint32_t)body[3] << 24;
    size_t rounds_at = (4 + salt_length + 3) / 4 * 4;
    if (salt_length == 0 || 18 + rounds_at + 4 > got) return -1;
    const unsigned char *r = body + rounds_at;
    unsigned long rounds = r[0] | r[1] << 8 | r[2] << 16 | (unsigned long)r[3] << 24;
    return gcry_kdf_derive(master, strlen(master), GCRY_KDF_PBKDF2, GCRY_MD_SHA256, body + 4, salt_length, rounds,
                           16, key) == 0 ? 0 : -1;
}

/** Whether `core` holds the NUL-terminated `text`. */
static int holds(const char *core, size_t size, const char *text)
{
    return memmem(core, size, text, strlen(text)) != NULL;
}

/** Runs a child that, after the parent stored a marker (both made after the
 *  fork), opens a handle of its own, reads the key and aborts, copying the
 *  value to the heap first when `copy_to_heap`; returns whether its core
 *  (which must exist) holds the marker, -1 when there was no core. On the
 *  file store the parent writes with a handle of its own on a file of its
 *  own, whose master secret is a marker too: the core must never hold it. */
static int core_holds_the_value(kk_keychain *kc, int copy_to_heap)
{
    const char *tag = copy_to_heap ? "core-control" : "core";
    int file = kt_current_backend() == KT_FILE;
    char path[512];
    snprintf(path, sizeof path, "%s.%s", kt_file_path(), tag);
    char directory[] = "/tmp/kk-core-test.XXXXXX";
    if (!CHECK(mkdtemp(directory) != NULL)) return -1;
    int go[2];
    if (!CHECK(pipe(go) == 0)) return -1;
    pid_t child = fork();
    if (child == 0) {
        close(go[1]);
        char byte;
        if (read(go[0], &byte, 1) != 1) _exit(2);
        struct rlimit unlimited = {RLIM_INFINITY, RLIM_INFINITY};
        if (setrlimit(RLIMIT_CORE, &unlimited) != 0 || chdir(directory) != 0) _exit(3);
        kk_keychain *own = NULL;
        char *value = NULL;
        size_t len = 0;
        if (open_own(go[0], path, &own) != KK_OK || kk_get(own, kt_service(), "acct", &value, &len) != KK_OK) _exit(4);
        if (copy_to_heap) {
            char *copy = malloc(len + 1);
            memcpy(copy, value, len + 1);
            __asm__ volatile("" : : "r"(copy) : "memory"); /* kept */
        }
        abort(); /* holding the value */
    }
    close(go[0]);
    char marker[128], master[128];
    hy_marker(marker, sizeof marker, tag);
    hy_marker(master, sizeof master, copy_to_heap ? "core-control-master" : "core-master");
    kk_keychain *writer = kc;
    if (file) CHECK_STATUS(kt_open_file(path, master, &writer), KK_OK);
    int result = -1;
    if (CHECK(child > 0) && writer != NULL &&
        CHECK_STATUS(kk_set(writer, kt_service(), "acct", marker, strlen(marker)), KK_OK)) {
        CHECK(write(go[1], "g", 1) == 1);
        if (file) CHECK(write(go[1], master, strlen(master)) == (ssize_t)strlen(master));
        close(go[1]);
        int status = 0;
        CHECK(waitpid(child, &status, 0) == child);
        if (CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT) &&
            kt_check(WCOREDUMP(status), __FILE__, __LINE__, "the child left a core (core_pattern: plain 'core')")) {
            size_t size = 0;
            char *core = read_core(directory, &size);
            if (CHECK(core != NULL && size > 0)) {
                result = holds(core, size, marker);
                unsigned char key[16];
                if (file) {
                    kt_check(!holds(core, size, master), __FILE__, __LINE__, "the core holds no master secret");
                    if (CHECK(derive_file_key(path, master, key) == 0))
                        kt_check(memmem(core, size, key, sizeof key) == NULL, __FILE__, __LINE__,
                                 "the core holds no key of the file, nor its expanded form");
                    explicit_bzero(key, sizeof key);
                }
            }
            free(core);
        }
    } else {
        close(go[1]);
        if (child > 0) waitpid(child, NULL, 0);
    }
    if (file && writer != NULL) {
        kk_close(writer);
        unlink(path);
    } else if (!file) {
        CHECK_STATUS(kk_remove(kc, kt_service(), "acct"), KK_OK);
    }
    explicit_bzero(marker, sizeof marker);
    explicit_bzero(master, sizeof master);
    rmdir(directory);
    return result;
}

/* On the Secret Service the library keeps no value of its own; the file
 * store keeps its items and master secret in secret memory while open. */
TEST_ON(KT_SECRET_SERVICE | KT_FILE, a_value_kk_get_returned_is_not_in_a_core_dump)
{
    kk_keychain *kc = kt_current_backend() == KT_FILE ? NULL : kt_open();
    REQUIRE(kt_current_backend() == KT_FILE || kc != NULL);
    CHECK_EQ(core_holds_the_value(kc, 1), 1); /* the search finds a copy on the heap */
    CHECK_EQ(core_holds_the_value(kc, 0), 0); /* and none in the library's memory */
    if (kc != NULL) kk_close(kc);
}
