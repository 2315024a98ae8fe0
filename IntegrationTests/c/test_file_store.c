/* SPDX-License-Identifier: MIT */
/*
 * test_file_store.c — the file backend (kk_open_file) beyond the shared
 * contract: libsecret's own file backend (secret-tool with
 * SECRET_BACKEND=file, no D-Bus) reads what we write and we read what it
 * writes, its writes reach our observers; a wrong master secret, a missing
 * one, a damaged or foreign file and a file others may read each have their
 * status and leave the file as it was; writers in several processes lose
 * nothing; a writer killed at any moment loses no acknowledged write; the
 * file and its directory are private. And every backend reports how long
 * its items last (kk_persistence_of).
 */
#define _DEFAULT_SOURCE

#include "kt_fork.h"
#include "kt_keychain.h"

#include <gio/gio.h>

#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/* ---- helpers ------------------------------------------------------------------ */

/** Runs libsecret's secret-tool on the keyring file `path` with `password`
 *  (`arguments` already quoted), writing `input` to it when not NULL, else
 *  reading its output into `out` (NUL-terminated). Returns its exit status. */
static int secret_tool(const char *path, const char *password, const char *arguments, const char *input,
                       char *out, size_t out_size)
{
    char command[2048];
    snprintf(command, sizeof command,
             "env -u DBUS_SESSION_BUS_ADDRESS SECRET_BACKEND=file SECRET_FILE_TEST_PATH='%s' "
             "SECRET_FILE_TEST_PASSWORD='%s' timeout 20 secret-tool %s%s",
             path, password, arguments, input ? "" : " 2>&1"); /* search prints attributes on stderr */
    FILE *pipe = popen(command, input ? "w" : "r");
    if (pipe == NULL) return -1;
    if (input) {
        fputs(input, pipe);
    } else if (out) {
        size_t got = fread(out, 1, out_size - 1, pipe);
        out[got] = '\0';
    }
    int status = pclose(pipe);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/** The whole contents of `path` into a new buffer (free it); NULL when unreadable. */
static unsigned char *slurp(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL) return NULL;
    unsigned char *data = malloc(1 << 20);
    *size = data ? fread(data, 1, 1 << 20, f) : 0;
    fclose(f);
    return data;
}

/** Whether `path` holds exactly `size` bytes equal to `data`. */
static int unchanged(const char *path, const unsigned char *data, size_t size)
{
    size_t now_size = 0;
    unsigned char *now = slurp(path, &now_size);
    int same = now != NULL && now_size == size && memcmp(now, data, size) == 0;
    free(now);
    return same;
}

static void write_file(const char *path, const void *data, size_t size, mode_t mode)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode);
    if (!CHECK(fd >= 0)) return;
    CHECK(write(fd, data, size) == (ssize_t)size);
    fchmod(fd, mode);
    close(fd);
}

static kk_status set_str(kk_keychain *kc, const char *svc, const char *account, const char *value)
{
    return kk_set(kc, svc, account, value, strlen(value));
}

/* ---- interoperation with libsecret ----------------------------------------------- */

TEST_ON(KT_FILE, libsecret_reads_our_items_with_value_label_and_schema)
{
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    const char *svc = kt_service();
    CHECK_STATUS(set_str(kc, svc, "alice", "s3cret \xc3\xa9t\xc3\xa9"), KK_OK);
    char out[4096], args[512];
    snprintf(args, sizeof args, "lookup service '%s' username alice", svc);
    CHECK_EQ(secret_tool(kt_file_path(), KT_FILE_MASTER, args, NULL, out, sizeof out), 0);
    CHECK_STR_EQ(out, "s3cret \xc3\xa9t\xc3\xa9");
    snprintf(args, sizeof args, "search --all service '%s'", svc);
    CHECK_EQ(secret_tool(kt_file_path(), KT_FILE_MASTER, args, NULL, out, sizeof out), 0);
    char label[300];
    snprintf(label, sizeof label, "label = Password for 'alice' on '%s'", svc);
    CHECK(strstr(out, label) != NULL);
    CHECK(strstr(out, "schema = io.github.keychainkit.Password") != NULL);
    CHECK(strstr(out, "attribute.username = alice") != NULL);
    CHECK(strstr(out, "created = 20") != NULL);
    kk_close(kc);
}

TEST_ON(KT_FILE, we_read_libsecrets_items_and_it_reads_our_replacement)
{
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    const char *svc = kt_service();
    CHECK_STATUS(set_str(kc, svc, "ours", "first"), KK_OK); /* the file exists: libsecret adds to it */
    char args[512], out[4096];
    snprintf(args, sizeof args, "store --label='Theirs' service '%s' username bob", svc);
    CHECK_EQ(secret_tool(kt_file_path(), KT_FILE_MASTER, args, "from libsecret", NULL, 0), 0);
    CHECK_VALUE(kc, svc, "bob", "from libsecret", 14); /* the open handle reads the new file */
    char **accounts = NULL;
    size_t n = 0;
    CHECK_STATUS(kk_list(kc, svc, &accounts, &n), KK_OK);
    CHECK_EQ(n, 2);
    kk_list_free(accounts);
    CHECK_STATUS(set_str(kc, svc, "bob", "replaced by us"), KK_OK); /* in place: one item */
    snprintf(args, sizeof args, "lookup service '%s' username bob", svc);
    CHECK_EQ(secret_tool(kt_file_path(), KT_FILE_MASTER, args, NULL, out, sizeof out), 0);
    CHECK_STR_EQ(out, "replaced by us");
    snprintf(args, sizeof args, "search --all service '%s' username bob", svc);
    CHECK_EQ(secret_tool(kt_file_path(), KT_FILE_MASTER, args, NULL, out, sizeof out), 0);
    CHECK(strstr(out, "label = Theirs") != NULL); /* its label kept */
    CHECK(strstr(strstr(out, "label") + 1, "label") == NULL); /* one item */
    kk_close(kc);
}

TEST_ON(KT_FILE, libsecrets_copy_of_our_key_is_read_when_newer_and_collapsed_by_the_next_write)
{
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    const char *svc = kt_service();
    CHECK_STATUS(set_str(kc, svc, "dup", "ours"), KK_OK);
    kt_sleep_ms(1100); /* times are in seconds: theirs is newer */
    char args[512], out[4096];
    snprintf(args, sizeof args, "store --label=L service '%s' username dup", svc);
    /* Its replace matches all of an item's attributes; ours has xdg:schema too: a copy. */
    CHECK_EQ(secret_tool(kt_file_path(), KT_FILE_MASTER, args, "theirs", NULL, 0), 0);
    CHECK_VALUE(kc, svc, "dup", "theirs", 6); /* the most recently modified */
    CHECK_STATUS(set_str(kc, svc, "dup", "one again"), KK_OK);
    snprintf(args, sizeof args, "search --all service '%s' username dup", svc);
    CHECK_EQ(secret_tool(kt_file_path(), KT_FILE_MASTER, args, NULL, out, sizeof out), 0);
    CHECK(strstr(out, "secret = one again") != NULL);
    CHECK(strstr(strstr(out, "secret =") + 1, "secret =") == NULL); /* one item */
    kk_close(kc);
}

/** An observer that counts events of each kind. */
typedef struct counter {
    atomic_int events[5];
} counter;

static void count_event(kk_event event, const char *service, const char *account, kk_status status, void *userdata)
{
    (void)service, (void)account, (void)status;
    counter *c = userdata;
    if (event >= 1 && event <= 4) atomic_fetch_add(&c->events[event], 1);
}

static int wait_count(counter *c, kk_event event, int n)
{
    for (int waited = 0; atomic_load(&c->events[event]) < n && waited < 5000; waited += 10) kt_sleep_ms(10);
    return atomic_load(&c->events[event]);
}

TEST_ON(KT_FILE, libsecrets_writes_reach_observers)
{
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    const char *svc = kt_service();
    CHECK_STATUS(set_str(kc, svc, "other", "x"), KK_OK);
    static counter c;
    uint64_t token = 0;
    CHECK_STATUS(kk_observe(kc, svc, "watched", count_event, &c, NULL, &token), KK_OK);
    kt_sleep_ms(200); /* the delivery thread watches the directory */
    char args[512];
    snprintf(args, sizeof args, "store --label=L service '%s' username watched", svc);
    CHECK_EQ(secret_tool(kt_file_path(), KT_FILE_MASTER, args, "v1", NULL, 0), 0);
    CHECK_EQ(wait_count(&c, KK_EVENT_CHANGED, 1), 1);
    snprintf(args, sizeof args, "clear service '%s' username watched", svc);
    CHECK_EQ(secret_tool(kt_file_path(), KT_FILE_MASTER, args, NULL, NULL, 0), 0);
    CHECK_EQ(wait_count(&c, KK_EVENT_DELETED, 1), 1);
    snprintf(args, sizeof args, "store --label=L service '%s' username elsewhere", svc);
    CHECK_EQ(secret_tool(kt_file_path(), KT_FILE_MASTER, args, "v", NULL, 0), 0);
    kt_sleep_ms(400);
    CHECK_EQ(atomic_load(&c.events[KK_EVENT_CHANGED]), 1); /* another key: not ours to hear */
    CHECK_EQ(atomic_load(&c.events[KK_EVENT_DELETED]), 1);
    CHECK_STATUS(kk_unobserve(kc, token), KK_OK);
    kk_close(kc);
}

TEST_ON(KT_FILE, items_another_master_sealed_are_kept_untouched)
{
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    const char *svc = kt_service();
    CHECK_STATUS(set_str(kc, svc, "ours", "1"), KK_OK);
    /* libsecret cannot tell a wrong password: it adds an item sealed by it. */
    char args[512], out[256];
    snprintf(args, sizeof args, "store --label=L service '%s' username theirs", svc);
    CHECK_EQ(secret_tool(kt_file_path(), "another-password", args, "sealed by another", NULL, 0), 0);
    CHECK_ABSENT(kc, svc, "theirs");
    CHECK_STATUS(set_str(kc, svc, "ours", "2"), KK_OK);
    snprintf(args, sizeof args, "lookup service '%s' username theirs", svc);
    CHECK_EQ(secret_tool(kt_file_path(), "another-password", args, NULL, out, sizeof out), 0);
    CHECK_STR_EQ(out, "sealed by another");
    CHECK_VALUE(kc, svc, "ours", "2", 1);
    kk_close(kc);
}

/* ---- master secrets ------------------------------------------------------------------ */

TEST_ON(KT_FILE, a_wrong_master_secret_is_its_own_status_and_changes_nothing)
{
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    CHECK_STATUS(set_str(kc, kt_service(), "a", "v"), KK_OK);
    kk_close(kc);
    size_t size = 0;
    unsigned char *before = slurp(kt_file_path(), &size);
    REQUIRE(before != NULL);
    kk_keychain *wrong = NULL;
    CHECK_STATUS(kt_open_file(kt_file_path(), "kt-master-secreT", &wrong), KK_EWRONGKEY);
    CHECK(wrong == NULL);
    CHECK(strstr(kk_error_message(), kt_file_path()) != NULL);
    CHECK(strstr(kk_error_message(), "kt-master-secreT") == NULL);
    CHECK_STR_EQ(kk_status_string(KK_EWRONGKEY), "the master secret does not open the keychain");
    CHECK(unchanged(kt_file_path(), before, size));
    free(before);
}

TEST_ON(KT_FILE, an_empty_file_accepts_any_master_secret)
{
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    CHECK_STATUS(set_str(kc, kt_service(), "a", "v"), KK_OK);
    CHECK_STATUS(kk_remove(kc, kt_service(), "a"), KK_OK);
    kk_close(kc);
    kk_keychain *other = NULL;
    CHECK_STATUS(kt_open_file(kt_file_path(), "a new master", &other), KK_OK);
    CHECK_STATUS(set_str(other, kt_service(), "b", "w"), KK_OK);
    kk_close(other);
    CHECK_STATUS(kt_open_file(kt_file_path(), KT_FILE_MASTER, &other), KK_EWRONGKEY);
    CHECK_STATUS(kt_open_file(kt_file_path(), "a new master", &other), KK_OK);
    CHECK_VALUE(other, kt_service(), "b", "w", 1);
    kk_close(other);
}

TEST_ON(KT_FILE, no_master_secret_source_fails_fast_and_writes_nothing)
{
    unsetenv("CREDENTIALS_DIRECTORY");
    kk_file_options options = KK_FILE_OPTIONS_INIT;
    options.path = kt_file_path();
    kk_keychain *kc = NULL;
    CHECK_STATUS(kk_open_file(&options, &kc), KK_ENOKEY);
    CHECK(strstr(kk_error_message(), "CREDENTIALS_DIRECTORY") != NULL); /* the sources are named */
    CHECK(strstr(kk_error_message(), "file descriptor") != NULL);
    CHECK(strstr(kk_error_message(), "keychainkit.master") != NULL);
    options.master_source = KK_MASTER_CREDENTIAL;
    CHECK_STATUS(kk_open_file(&options, &kc), KK_ENOKEY);
    CHECK(strstr(kk_error_message(), "keychainkit.master") != NULL);
    options.master_source = KK_MASTER_SECRET;
    options.master = (const unsigned char *)"";
    CHECK_STATUS(kk_open_file(&options, &kc), KK_ENOKEY); /* never a key derived from nothing */
    options.master = NULL;
    options.master_len = 3;
    CHECK_STATUS(kk_open_file(&options, &kc), KK_EINVAL);
    int fds[2];
    REQUIRE(pipe(fds) == 0);
    close(fds[1]);
    options.master_source = KK_MASTER_FD;
    options.master_fd = fds[0];
    CHECK_STATUS(kk_open_file(&options, &kc), KK_ENOKEY); /* an empty pipe */
    close(fds[0]);
    setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent/kk-test-bus", 1);
    options.master_source = KK_MASTER_PORTAL; /* no bus: no portal, at once */
    CHECK_STATUS(kk_open_file(&options, &kc), KK_ENOKEY);
    CHECK(strstr(kk_error_message(), "Secret portal") != NULL);
    options.master_source = (kk_master_source)42;
    CHECK_STATUS(kk_open_file(&options, &kc), KK_EINVAL);
    struct stat st;
    CHECK(stat(kt_file_path(), &st) != 0); /* nothing written */
}

TEST_ON(KT_FILE, master_secret_from_a_descriptor_and_from_a_systemd_credential)
{
    int fds[2];
    REQUIRE(pipe(fds) == 0);
    CHECK(write(fds[1], KT_FILE_MASTER, strlen(KT_FILE_MASTER)) == (ssize_t)strlen(KT_FILE_MASTER));
    close(fds[1]);
    kk_file_options options = KK_FILE_OPTIONS_INIT;
    options.path = kt_file_path();
    options.master_source = KK_MASTER_FD;
    options.master_fd = fds[0];
    kk_keychain *kc = NULL;
    CHECK_STATUS(kk_open_file(&options, &kc), KK_OK);
    CHECK(fcntl(fds[0], F_GETFD) != -1); /* the descriptor is the caller's: not closed */
    close(fds[0]);
    CHECK_STATUS(set_str(kc, kt_service(), "a", "by fd"), KK_OK);
    kk_close(kc);

    char directory[400], credential[500];
    snprintf(directory, sizeof directory, "%s.credentials", kt_file_path());
    REQUIRE(mkdir(directory, 0700) == 0);
    snprintf(credential, sizeof credential, "%s/keychainkit.master", directory);
    write_file(credential, KT_FILE_MASTER, strlen(KT_FILE_MASTER), 0400);
    setenv("CREDENTIALS_DIRECTORY", directory, 1);
    kk_file_options automatic = KK_FILE_OPTIONS_INIT;
    automatic.path = kt_file_path();
    CHECK_STATUS(kk_open_file(&automatic, &kc), KK_OK);
    CHECK_VALUE(kc, kt_service(), "a", "by fd", 5);
    kk_close(kc);
    automatic.master_source = KK_MASTER_CREDENTIAL;
    CHECK_STATUS(kk_open_file(&automatic, &kc), KK_OK);
    kk_close(kc);
    unsetenv("CREDENTIALS_DIRECTORY");
}

/* The master's bounds and sources, as the header gives them: at most 4096
 * bytes; from a descriptor exactly what it holds (a final newline is part
 * of it); a credentials directory without keychainkit.master is no
 * master. */
TEST_ON(KT_FILE, master_secrets_are_bounded_and_taken_as_given)
{
    unsigned char big[4097];
    memset(big, 'm', sizeof big);
    kk_file_options options = KK_FILE_OPTIONS_INIT;
    options.path = kt_file_path();
    options.master_source = KK_MASTER_SECRET;
    options.master = big;
    options.master_len = 4096;
    kk_keychain *kc = NULL;
    if (CHECK_STATUS(kk_open_file(&options, &kc), KK_OK)) {
        CHECK_STATUS(set_str(kc, kt_service(), "a", "v"), KK_OK);
        kk_close(kc);
    }
    options.master_len = 4097;
    CHECK_STATUS(kk_open_file(&options, &kc), KK_EINVAL);

    /* 4095 of the bytes and a newline: the newline is the 4096th byte. */
    kk_file_options by_fd = KK_FILE_OPTIONS_INIT;
    by_fd.path = kt_file_path();
    by_fd.master_source = KK_MASTER_FD;
    for (size_t length = 4095; length <= 4096; length++) {
        int fds[2];
        REQUIRE(pipe(fds) == 0);
        CHECK(write(fds[1], big, length) == (ssize_t)length);
        CHECK(write(fds[1], "\n", 1) == 1);
        close(fds[1]);
        by_fd.master_fd = fds[0];
        /* 4097 bytes: more than a master holds. */
        CHECK_STATUS(kk_open_file(&by_fd, &kc), length == 4095 ? KK_EWRONGKEY : KK_ENOKEY);
        close(fds[0]);
    }

    char directory[400];
    snprintf(directory, sizeof directory, "%s.empty-credentials", kt_file_path());
    REQUIRE(mkdir(directory, 0700) == 0);
    setenv("CREDENTIALS_DIRECTORY", directory, 1);
    kk_file_options credential = KK_FILE_OPTIONS_INIT;
    credential.path = kt_file_path();
    credential.master_source = KK_MASTER_CREDENTIAL;
    CHECK_STATUS(kk_open_file(&credential, &kc), KK_ENOKEY);
    CHECK(strstr(kk_error_message(), "keychainkit.master") != NULL);
    unsetenv("CREDENTIALS_DIRECTORY");
    rmdir(directory);
}

/** Removes the kernel's cached master of the test's file (its key in the
 *  persistent keyring, as kk_open_kernel_keyring sees it). */
static void forget_cached_master(void)
{
    kk_keychain *kernel = NULL;
    if (kk_open_kernel_keyring_in(KK_KERNEL_PERSISTENT, &kernel) != KK_OK) return;
    kk_remove(kernel, "keychainkit-file-master", kt_file_path());
    kk_close(kernel);
}

TEST_ON(KT_FILE, a_master_cached_in_the_kernel_opens_the_file_until_it_no_longer_does)
{
    unsetenv("CREDENTIALS_DIRECTORY");
    forget_cached_master();
    kk_file_options options = KK_FILE_OPTIONS_INIT;
    options.path = kt_file_path();
    kk_keychain *kc = NULL;
    CHECK_STATUS(kk_open_file(&options, &kc), KK_ENOKEY); /* nothing cached yet */
    options.master_source = KK_MASTER_SECRET;
    options.master = (const unsigned char *)KT_FILE_MASTER;
    options.master_len = strlen(KT_FILE_MASTER);
    options.flags = KK_FILE_CACHE_MASTER;
    REQUIRE(CHECK_STATUS(kk_open_file(&options, &kc), KK_OK));
    CHECK_STATUS(set_str(kc, kt_service(), "a", "cached"), KK_OK);
    kk_close(kc);
    /* The kernel holds it where the header says. */
    kk_keychain *kernel = NULL;
    REQUIRE(CHECK_STATUS(kk_open_kernel_keyring_in(KK_KERNEL_PERSISTENT, &kernel), KK_OK));
    CHECK_VALUE(kernel, "keychainkit-file-master", kt_file_path(), KT_FILE_MASTER, strlen(KT_FILE_MASTER));
    kk_file_options automatic = KK_FILE_OPTIONS_INIT;
    automatic.path = kt_file_path();
    REQUIRE(CHECK_STATUS(kk_open_file(&automatic, &kc), KK_OK)); /* no source named: the cache */
    CHECK_VALUE(kc, kt_service(), "a", "cached", 6);
    kk_close(kc);
    /* A cached copy that no longer opens the file is forgotten. */
    CHECK_STATUS(kk_set(kernel, "keychainkit-file-master", kt_file_path(), "stale", 5), KK_OK);
    CHECK_STATUS(kk_open_file(&automatic, &kc), KK_EWRONGKEY);
    CHECK_ABSENT(kernel, "keychainkit-file-master", kt_file_path());
    CHECK_STATUS(kk_open_file(&automatic, &kc), KK_ENOKEY);
    options.flags = 2;
    CHECK_STATUS(kk_open_file(&options, &kc), KK_EINVAL); /* an unknown flag */
    kk_close(kernel);
    forget_cached_master();
}

/* ---- bad files ------------------------------------------------------------------------------ */

/** Opens `path` holding `data`: `want`, and the file unchanged. */
static void check_refused(const char *path, const void *data, size_t size, mode_t mode, kk_status want)
{
    write_file(path, data, size, mode);
    kk_keychain *kc = NULL;
    CHECK_STATUS(kt_open_file(path, KT_FILE_MASTER, &kc), want);
    CHECK(kk_error_message()[0] != '\0');
    CHECK(unchanged(path, data, size));
}

TEST_ON(KT_FILE, damaged_foreign_and_unreadable_files_are_refused_and_kept)
{
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    CHECK_STATUS(set_str(kc, kt_service(), "a", "v"), KK_OK);
    kk_close(kc);
    size_t size = 0;
    unsigned char *good = slurp(kt_file_path(), &size);
    REQUIRE(good != NULL && size > 60);
    char path[500];
    snprintf(path, sizeof path, "%s.bad", kt_file_path());
    check_refused(path, "not a keyring at all", 20, 0600, KK_ECORRUPT);
    check_refused(path, good, 10, 0600, KK_ECORRUPT);        /* a part of the header */
    check_refused(path, good, size - 7, 0600, KK_ECORRUPT);  /* truncated */
    unsigned char altered[1 << 12];
    REQUIRE(size <= sizeof altered);
    memcpy(altered, good, size);
    altered[16] = 2; /* version 2.0 */
    check_refused(path, altered, size, 0600, KK_ECORRUPT);
    CHECK(strstr(kk_error_message(), "version 2.0") != NULL);
    memcpy(altered, good, size);
    altered[size - 40] ^= 1; /* inside the only item's MAC: opens nothing */
    check_refused(path, altered, size, 0600, KK_EWRONGKEY);
    check_refused(path, good, size, 0644, KK_EDENIED); /* others may read it */
    CHECK(strstr(kk_error_message(), "chmod 600") != NULL);
    check_refused(path, good, size, 0620, KK_EDENIED); /* others may write it */
    free(good);
}

TEST_ON(KT_FILE, the_file_and_its_directory_are_private)
{
    char path[500];
    snprintf(path, sizeof path, "%s.d/sub/keys.keyring", kt_file_path());
    kk_keychain *kc = NULL;
    CHECK_STATUS(kt_open_file(path, KT_FILE_MASTER, &kc), KK_OK);
    struct stat st;
    CHECK(stat(path, &st) != 0); /* nothing until the first write */
    CHECK_STATUS(set_str(kc, kt_service(), "a", "v"), KK_OK);
    REQUIRE(stat(path, &st) == 0);
    CHECK_EQ(st.st_mode & 0777, 0600);
    char directory[500];
    snprintf(directory, sizeof directory, "%s.d/sub", kt_file_path());
    REQUIRE(stat(directory, &st) == 0);
    CHECK_EQ(st.st_mode & 0777, 0700);
    kk_close(kc);
}

/* ---- several processes ------------------------------------------------------------------ */

TEST_ON(KT_FILE, writers_in_four_processes_lose_nothing)
{
    enum { CHILDREN = 4, KEYS = 25 };
    const char *svc = kt_service();
    pid_t pids[CHILDREN];
    for (int c = 0; c < CHILDREN; c++) {
        pids[c] = kt_fork();
        if (pids[c] == 0) {
            kk_keychain *kc = NULL;
            int ok = kt_open_file(kt_file_path(), KT_FILE_MASTER, &kc) == KK_OK;
            for (int k = 0; ok && k < KEYS; k++) {
                char account[32], value[32];
                snprintf(account, sizeof account, "c%d-k%d", c, k);
                snprintf(value, sizeof value, "value %d %d", c, k);
                ok = set_str(kc, svc, account, value) == KK_OK && set_str(kc, svc, "shared", value) == KK_OK;
            }
            kk_close(kc);
            KT_CHILD(ok);
            kt_child_exit();
        }
    }
    for (int c = 0; c < CHILDREN; c++) CHECK_CHILD(pids[c], "a writer");
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    char **accounts = NULL;
    size_t n = 0;
    CHECK_STATUS(kk_list(kc, svc, &accounts, &n), KK_OK);
    CHECK_EQ(n, CHILDREN * KEYS + 1); /* and "shared" is one item */
    kk_list_free(accounts);
    /* "shared" holds some writer's last value (each wrote it same-sized,
     * 100 times in all): no write went back to an older file. */
    char *shared = NULL;
    size_t shared_len = 0;
    CHECK_STATUS(kk_get(kc, svc, "shared", &shared, &shared_len), KK_OK);
    int last = 0;
    for (int c = 0; c < CHILDREN; c++) {
        char value[32];
        snprintf(value, sizeof value, "value %d %d", c, KEYS - 1);
        last |= shared != NULL && strcmp(shared, value) == 0;
    }
    CHECK(last);
    kk_secret_free(shared);
    for (int c = 0; c < CHILDREN; c++)
        for (int k = 0; k < KEYS; k++) {
            char account[32], value[32];
            snprintf(account, sizeof account, "c%d-k%d", c, k);
            snprintf(value, sizeof value, "value %d %d", c, k);
            CHECK_VALUE(kc, svc, account, value, strlen(value));
        }
    kk_close(kc);
}

TEST_ON(KT_FILE, same_sized_rewrites_by_another_process_are_read)
{
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    const char *svc = kt_service();
    for (int round = 0; round < 50; round++) {
        char value[16];
        snprintf(value, sizeof value, "v%04d", round); /* same size each time */
        pid_t pid = kt_fork();
        if (pid == 0) {
            kk_keychain *other = NULL;
            int ok = kt_open_file(kt_file_path(), KT_FILE_MASTER, &other) == KK_OK &&
                     set_str(other, svc, "k", "xxxxx") == KK_OK && set_str(other, svc, "k", value) == KK_OK;
            kk_close(other);
            KT_CHILD(ok);
            kt_child_exit();
        }
        REQUIRE(CHECK_CHILD(pid, "the writer"));
        CHECK_VALUE(kc, svc, "k", value, 5);
    }
    kk_close(kc);
}

TEST_ON(KT_FILE, a_writer_killed_at_any_moment_loses_no_acknowledged_write)
{
    const char *svc = kt_service();
    for (int round = 0; round < 6; round++) {
        int fds[2];
        REQUIRE(pipe(fds) == 0);
        pid_t pid = kt_fork();
        if (pid == 0) {
            close(fds[0]);
            kk_keychain *kc = NULL;
            if (kt_open_file(kt_file_path(), KT_FILE_MASTER, &kc) != KK_OK) _exit(3);
            for (int k = 0;; k++) {
                char account[32];
                snprintf(account, sizeof account, "r%d-k%d", round, k);
                if (set_str(kc, svc, account, account) != KK_OK) _exit(4);
                if (write(fds[1], &k, sizeof k) != sizeof k) _exit(5); /* acknowledged */
            }
        }
        close(fds[1]);
        int acknowledged = -1, k;
        /* Kill after a different number of writes each round, at whatever point it is. */
        while (acknowledged < 3 + 5 * round && kt_read_all(fds[0], &k, sizeof k, 10000)) acknowledged = k;
        kill(pid, SIGKILL);
        while (kt_read_all(fds[0], &k, sizeof k, 1000)) acknowledged = k; /* written before the kill */
        close(fds[0]);
        int status = 0;
        waitpid(pid, &status, 0);
        CHECK(WIFSIGNALED(status));
        kk_keychain *kc = NULL;
        REQUIRE(CHECK_STATUS(kt_open_file(kt_file_path(), KT_FILE_MASTER, &kc), KK_OK));
        CHECK(acknowledged >= 3 + 5 * round);
        for (int j = 0; j <= acknowledged; j++) {
            char account[32];
            snprintf(account, sizeof account, "r%d-k%d", round, j);
            CHECK_VALUE(kc, svc, account, account, strlen(account));
        }
        kk_close(kc);
    }
}

TEST_ON(KT_FILE, the_next_write_removes_what_a_killed_writer_left_and_a_link_stays_a_link)
{
    /* A new file a writer killed before its rename left beside the file;
     * and the user's own files named alike, which stay (every write used to
     * delete any <name>.XXXXXX: app.keyring.backup, .2024v1, .README). */
    char leftover[500];
    snprintf(leftover, sizeof leftover, "%s.d/keys.keyring.keychainkit-new.Ab12Cd", kt_file_path());
    char directory[500], target[600], link[500];
    snprintf(directory, sizeof directory, "%s.d", kt_file_path());
    REQUIRE(mkdir(directory, 0700) == 0);
    write_file(leftover, "half a file", 11, 0600);
    const char *own[] = {"backup", "2024v1", "README", "Ab12Cd"};
    char own_path[4][600];
    for (int i = 0; i < 4; i++) {
        snprintf(own_path[i], sizeof own_path[i], "%s/keys.keyring.%s", directory, own[i]);
        write_file(own_path[i], "the user's", 10, 0600);
    }
    snprintf(target, sizeof target, "%s/keys.keyring", directory);
    kk_keychain *kc = NULL;
    REQUIRE(CHECK_STATUS(kt_open_file(target, KT_FILE_MASTER, &kc), KK_OK));
    CHECK_STATUS(set_str(kc, kt_service(), "a", "v"), KK_OK);
    kk_close(kc);
    struct stat st;
    CHECK(stat(leftover, &st) != 0);
    for (int i = 0; i < 4; i++) CHECK(stat(own_path[i], &st) == 0);
    /* A keyring file kept elsewhere behind a symbolic link. */
    snprintf(link, sizeof link, "%s.link", kt_file_path());
    REQUIRE(symlink(target, link) == 0);
    REQUIRE(CHECK_STATUS(kt_open_file(link, KT_FILE_MASTER, &kc), KK_OK));
    CHECK_STATUS(set_str(kc, kt_service(), "b", "w"), KK_OK);
    kk_close(kc);
    CHECK(lstat(link, &st) == 0 && S_ISLNK(st.st_mode));
    REQUIRE(CHECK_STATUS(kt_open_file(target, KT_FILE_MASTER, &kc), KK_OK));
    CHECK_VALUE(kc, kt_service(), "b", "w", 1);
    kk_close(kc);
}

TEST_ON(KT_FILE, a_write_waits_for_another_writers_lock_at_most_its_timeout)
{
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    CHECK_STATUS(set_str(kc, kt_service(), "a", "before"), KK_OK);
    kk_close(kc);
    char lock_path[500];
    snprintf(lock_path, sizeof lock_path, "%s.lock", kt_file_path());
    int lock = open(lock_path, O_RDWR);
    REQUIRE(lock >= 0 && flock(lock, LOCK_EX) == 0); /* another writer, stuck */
    kk_file_options options = KK_FILE_OPTIONS_INIT;
    options.path = kt_file_path();
    options.master_source = KK_MASTER_SECRET;
    options.master = (const unsigned char *)KT_FILE_MASTER;
    options.master_len = strlen(KT_FILE_MASTER);
    options.lock_timeout_ms = 200;
    REQUIRE(CHECK_STATUS(kk_open_file(&options, &kc), KK_OK));
    CHECK_STATUS(set_str(kc, kt_service(), "a", "blocked"), KK_EUNKNOWN);
    CHECK(strstr(kk_error_message(), ".lock") != NULL);
    CHECK_VALUE(kc, kt_service(), "a", "before", 6); /* reads need no lock; nothing stored */
    close(lock); /* released */
    CHECK_STATUS(set_str(kc, kt_service(), "a", "after"), KK_OK);
    kk_close(kc);
}

/* ---- a hostile file's cost -------------------------------------------------------------- */

/** The peak resident memory of this process, in KiB (VmHWM). */
static long peak_kib(void)
{
    FILE *status = fopen("/proc/self/status", "r");
    char line[256];
    long kib = -1;
    while (status != NULL && fgets(line, sizeof line, status) != NULL)
        if (sscanf(line, "VmHWM: %ld kB", &kib) == 1) break;
    if (status != NULL) fclose(status);
    return kib;
}

/** Writes a keyring file at `path` of `items` items, each of `attributes`
 *  attributes of an empty name and an empty hash (6 bytes each in the file)
 *  and a blob of the fewest bytes (64) no master opens, built with GLib's
 *  GVariant (the format libsecret writes); returns its size. */
static long write_hostile_file(const char *path, unsigned items, unsigned attributes)
{
    unsigned char blob[64] = {0}, salt[32] = {1};
    GVariantBuilder list;
    g_variant_builder_init(&list, G_VARIANT_TYPE("a(a{say}ay)"));
    for (unsigned item = 0; item < items; item++) {
        GVariantBuilder pairs;
        g_variant_builder_init(&pairs, G_VARIANT_TYPE("a{say}"));
        for (unsigned i = 0; i < attributes; i++)
            g_variant_builder_add(&pairs, "{s@ay}", "", g_variant_new_fixed_array(G_VARIANT_TYPE_BYTE, "", 0, 1));
        g_variant_builder_add(&list, "(@a{say}@ay)", g_variant_builder_end(&pairs),
                              g_variant_new_fixed_array(G_VARIANT_TYPE_BYTE, blob, sizeof blob, 1));
    }
    GVariant *body = g_variant_ref_sink(g_variant_new(
        "(u@ayutu@a(a{say}ay))", (guint32)sizeof salt, g_variant_new_fixed_array(G_VARIANT_TYPE_BYTE, salt, sizeof salt, 1),
        (guint32)100000, (guint64)0, (guint32)1, g_variant_builder_end(&list)));
    FILE *file = fopen(path, "wb");
    long size = -1;
    if (file != NULL && fwrite("GnomeKeyring\n\r\0\n\1\0", 1, 18, file) == 18 &&
        fwrite(g_variant_get_data(body), 1, g_variant_get_size(body), file) == g_variant_get_size(body))
        size = 18 + (long)g_variant_get_size(body);
    if (file != NULL) fclose(file);
    chmod(path, 0600);
    g_variant_unref(body);
    return size;
}

/** Opens the test's file (`size` bytes, every item another master's) in a
 *  child and checks that the open grew the peak resident memory by at most
 *  three times the file's size; `what` names the file in the report. */
static void check_the_cost_of_opening(long size, const char *what)
{
    int report[2];
    REQUIRE(pipe(report) == 0);
    pid_t child = kt_fork();
    if (child == 0) {
        kk_keychain *warm = NULL;
        kk_open_memory(&warm); /* the runtime's own memory, before measuring */
        kk_close(warm);
        FILE *clear = fopen("/proc/self/clear_refs", "w");
        if (clear != NULL) { fputs("5", clear); fclose(clear); } /* resets VmHWM */
        long before = peak_kib();
        kk_keychain *kc = NULL;
        kk_status status = kt_open_file(kt_file_path(), KT_FILE_MASTER, &kc); /* parsed whole, then: another master's */
        long growth = peak_kib() - before;
        kk_close(kc);
        char text[64];
        int n = snprintf(text, sizeof text, "%d %ld", (int)status, growth);
        _exit(write(report[1], text, (size_t)n) == n ? 0 : 1);
    }
    close(report[1]);
    char text[64] = "";
    ssize_t n = read(report[0], text, sizeof text - 1);
    close(report[0]);
    CHECK_CHILD(child, "the child that opened the file");
    int status = -1;
    long growth_kib = -1;
    REQUIRE(CHECK(n > 0 && sscanf(text, "%d %ld", &status, &growth_kib) == 2));
    CHECK_STATUS(status, KK_EWRONGKEY); /* its items are sealed by another master */
    kt_check(growth_kib >= 0 && growth_kib * 1024 <= 3 * size, __FILE__, __LINE__,
             "opening a %ld-byte file grew the peak by %ld KiB (at most three times its size)", size, growth_kib);
    printf("    a %.1f MiB file of %s: peak +%.1f MiB (%.2fx)\n", size / 1048576.0, what, growth_kib / 1024.0,
           growth_kib * 1024.0 / (double)size);
}

TEST_ON(KT_FILE, a_hostile_file_costs_memory_in_proportion_to_its_size)
{
    /* One item of a million attributes (6 MiB): opening it cost nine times
     * its size (a String, an array and a reader each), which at the 256 MiB
     * file limit was 2.37 GB; now at most three times. */
    long size = write_hostile_file(kt_file_path(), 1, 1000000);
    REQUIRE(CHECK(size > 5000000));
    check_the_cost_of_opening(size, "a million attributes");
}

TEST_ON(KT_FILE, a_file_of_many_small_items_costs_memory_in_proportion_to_its_size)
{
    /* The other shape: as many items as fit, each the smallest the format
     * allows (about 70 bytes); every item costs its blob, its slot and its
     * place in the list. */
    long size = write_hostile_file(kt_file_path(), 300000, 0);
    REQUIRE(CHECK(size > 20000000));
    check_the_cost_of_opening(size, "300,000 items of 64 bytes");
}

/* ---- what another user can put beside the file -------------------------------------- */

TEST_ON(KT_FILE, a_lock_file_link_another_user_planted_is_refused_and_not_followed)
{
    char lock_path[500], target[500];
    snprintf(lock_path, sizeof lock_path, "%s.lock", kt_file_path());
    snprintf(target, sizeof target, "%s.planted", kt_file_path());
    REQUIRE(symlink(target, lock_path) == 0);
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    CHECK_STATUS(set_str(kc, kt_service(), "a", "v"), KK_EDENIED);
    CHECK(strstr(kk_error_message(), ".lock") != NULL && strstr(kk_error_message(), "symbolic link") != NULL);
    struct stat st;
    CHECK(lstat(target, &st) != 0); /* nothing created where the link points */
    CHECK_ABSENT(kc, kt_service(), "a");
    /* A lock file that is not a regular file is no lock either. */
    unlink(lock_path);
    REQUIRE(mkfifo(lock_path, 0600) == 0);
    CHECK_STATUS(set_str(kc, kt_service(), "a", "v"), KK_EDENIED);
    CHECK(strstr(kk_error_message(), "not a regular file") != NULL);
    unlink(lock_path);
    CHECK_STATUS(set_str(kc, kt_service(), "a", "v"), KK_OK);
    kk_close(kc);
}

TEST_ON(KT_FILE, a_directory_another_user_controls_is_refused)
{
    char directory[500], path[600];
    snprintf(directory, sizeof directory, "%s.shared", kt_file_path());
    snprintf(path, sizeof path, "%s/keys.keyring", directory);
    REQUIRE(mkdir(directory, 0700) == 0);
    kk_keychain *kc = NULL;
    REQUIRE(CHECK_STATUS(kt_open_file(path, KT_FILE_MASTER, &kc), KK_OK));
    CHECK_STATUS(set_str(kc, kt_service(), "a", "v"), KK_OK);
    /* Anyone may create names in it (a sticky /tmp-like directory). */
    REQUIRE(chmod(directory, 01777) == 0);
    char *value = KT_SENTINEL;
    CHECK_STATUS(kk_get(kc, kt_service(), "a", &value, NULL), KK_EDENIED);
    CHECK(value == NULL);
    CHECK(strstr(kk_error_message(), directory) != NULL);
    CHECK_STATUS(set_str(kc, kt_service(), "a", "w"), KK_EDENIED);
    REQUIRE(chmod(directory, 0700) == 0);
    /* Another user's directory: that user could remove the keyring, and a
     * get would say "not found". Changing its owner needs root, which the
     * suite runs as (make test installs packages). */
    REQUIRE(CHECK(geteuid() == 0));
    REQUIRE(chown(directory, 65534, 65534) == 0);
    CHECK_STATUS(kk_get(kc, kt_service(), "a", &value, NULL), KK_EDENIED);
    CHECK(strstr(kk_error_message(), "uid 65534") != NULL);
    kk_keychain *other = NULL;
    CHECK_STATUS(kt_open_file(path, KT_FILE_MASTER, &other), KK_EDENIED);
    kk_close(other);
    REQUIRE(chown(directory, 0, 0) == 0);
    CHECK_VALUE(kc, kt_service(), "a", "v", 1); /* refused, never lost */
    kk_close(kc);
}

TEST_ON(KT_FILE, a_fifo_for_the_systemd_credential_is_refused_at_once)
{
    char directory[400], credential[500];
    snprintf(directory, sizeof directory, "%s.fifo-credentials", kt_file_path());
    REQUIRE(mkdir(directory, 0700) == 0);
    snprintf(credential, sizeof credential, "%s/keychainkit.master", directory);
    REQUIRE(mkfifo(credential, 0600) == 0); /* nobody writes it: an open used to wait forever */
    setenv("CREDENTIALS_DIRECTORY", directory, 1);
    kk_file_options options = KK_FILE_OPTIONS_INIT;
    options.path = kt_file_path();
    options.master_source = KK_MASTER_CREDENTIAL;
    kk_keychain *kc = NULL;
    double start = kt_now();
    CHECK_STATUS(kk_open_file(&options, &kc), KK_ENOKEY);
    CHECK(kt_now() - start < 5.0);
    CHECK(kc == NULL);
    CHECK(strstr(kk_error_message(), "not a regular file") != NULL);
    unsetenv("CREDENTIALS_DIRECTORY");
}

/* A directory from the environment that is not UTF-8 names no file: decoding
 * it would turn each bad byte into U+FFFD, another path. */
TEST_ON(KT_FILE, paths_from_the_environment_that_are_not_utf8_are_refused_not_changed)
{
    char directory[400];
    snprintf(directory, sizeof directory, "%s.data\xff", kt_file_path());
    const char *data_home = getenv("XDG_DATA_HOME");
    char *saved = data_home ? strdup(data_home) : NULL;
    setenv("XDG_DATA_HOME", directory, 1);
    kk_file_options options = KK_FILE_OPTIONS_INIT; /* no path: the default file */
    options.master_source = KK_MASTER_SECRET;
    options.master = (const unsigned char *)KT_FILE_MASTER;
    options.master_len = strlen(KT_FILE_MASTER);
    kk_keychain *kc = NULL;
    CHECK_STATUS(kk_open_file(&options, &kc), KK_EINVAL);
    CHECK(kc == NULL);
    CHECK(strstr(kk_error_message(), "XDG_DATA_HOME is not valid UTF-8") != NULL);
    if (saved) setenv("XDG_DATA_HOME", saved, 1); else unsetenv("XDG_DATA_HOME");
    free(saved);

    setenv("CREDENTIALS_DIRECTORY", directory, 1);
    options.path = kt_file_path();
    options.master_source = KK_MASTER_CREDENTIAL;
    CHECK_STATUS(kk_open_file(&options, &kc), KK_ENOKEY);
    CHECK(kc == NULL);
    CHECK(strstr(kk_error_message(), "CREDENTIALS_DIRECTORY is not valid UTF-8") != NULL);
    unsetenv("CREDENTIALS_DIRECTORY");
}

/* ---- persistence and the backend's name, every backend ------------------------------------- */

TEST(the_backend_is_named_and_the_default_outside_a_sandbox_is_the_secret_service)
{
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    const char *name = NULL;
    CHECK_STATUS(kk_backend_of(kc, &name), KK_OK);
    CHECK_STR_EQ(name, kt_current_backend() == KT_MEMORY   ? "memory"
                       : kt_current_backend() == KT_KERNEL ? "kernel"
                       : kt_current_backend() == KT_FILE   ? "file"
                                                           : "secret-service");
    CHECK_STATUS(kk_backend_of(kc, NULL), KK_EINVAL);
    CHECK_STATUS(kk_backend_of(NULL, &name), KK_EINVAL);
    kk_close(kc);
    /* Not sandboxed here (the sandbox's choice: IntegrationTests/portal). */
    kk_keychain *other = NULL;
    CHECK_STATUS(kk_open_default(&other), KK_OK); /* no I/O at open */
    name = NULL;
    CHECK_STATUS(kk_backend_of(other, &name), KK_OK);
    CHECK_STR_EQ(name, "secret-service");
    kk_close(other);
    CHECK_STATUS(kk_open_default(NULL), KK_EINVAL);
}


TEST(persistence_is_reported)
{
    kk_keychain *kc = kt_open();
    REQUIRE(kc != NULL);
    kk_persistence persistence = (kk_persistence)-1;
    CHECK_STATUS(kk_persistence_of(kc, &persistence), KK_OK);
    kk_persistence want = kt_current_backend() == KT_MEMORY   ? KK_UNTIL_CLOSE
                          : kt_current_backend() == KT_KERNEL ? KK_UNTIL_LOGOUT /* the session keyring */
                                                              : KK_PERSISTENT;
    CHECK_EQ(persistence, want);
    CHECK_STATUS(kk_persistence_of(kc, NULL), KK_EINVAL);
    CHECK_STATUS(kk_persistence_of(NULL, &persistence), KK_EINVAL);
    kk_close(kc);
    kk_keychain *other = NULL;
    CHECK_STATUS(kk_open_kernel_keyring_in(KK_KERNEL_PERSISTENT, &other), KK_OK);
    CHECK_STATUS(kk_persistence_of(other, &persistence), KK_OK);
    CHECK_EQ(persistence, KK_UNTIL_REBOOT);
    kk_close(other);
    kk_secret_service_options options = KK_SECRET_SERVICE_OPTIONS_INIT;
    options.collection = "session";
    CHECK_STATUS(kk_open_secret_service_with(&options, &other), KK_OK); /* no I/O at open */
    CHECK_STATUS(kk_persistence_of(other, &persistence), KK_OK);
    CHECK_EQ(persistence, KK_UNTIL_LOGOUT);
    kk_close(other);
}
