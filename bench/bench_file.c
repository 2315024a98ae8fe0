/* SPDX-License-Identifier: MIT */
/* The file store against libsecret's own file backend, in the same run:
 *
 * - in one process: kk_get of an item from an open file handle (the file
 *   unchanged: one stat(2) per read) as a rate, and its median against
 *   secret_password_lookup_sync with SECRET_BACKEND=file; kk_set of an
 *   existing item (one atomic, durable replace) against
 *   secret_password_store_sync;
 * - whole processes: `keychainkit --backend file get` against
 *   `secret-tool lookup` with SECRET_BACKEND=file, and `set` against
 *   `secret-tool store`.
 *
 * Both sides use one file each, holding `ITEMS` items, with the same master
 * secret (libsecret's SECRET_FILE_TEST_PASSWORD). No D-Bus is involved.
 *
 *   bench_file ROUNDS PROCESS_ROUNDS KEYCHAINKIT_TOOL WORKDIR
 *
 * Prints one JSON line per measurement (bench_common.h). */
#include "bench_common.h"

#include <keychainkit.h>
#include <libsecret/secret.h>

#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/stat.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#define MASTER "bench-master-secret"
#define SERVICE "bench.file"
#define ITEMS 20

static const SecretSchema schema = {
    "io.github.keychainkit.Bench", SECRET_SCHEMA_DONT_MATCH_NAME,
    {{"service", SECRET_SCHEMA_ATTRIBUTE_STRING}, {"username", SECRET_SCHEMA_ATTRIBUTE_STRING}, {NULL, 0}},
    0, NULL, NULL, NULL, NULL, NULL, NULL, NULL};

/* Runs argv with `input` on its stdin (NULL: /dev/null) and stdout to
 * /dev/null; returns the time it took, exits on failure. */
static uint64_t run_process(char *const argv[], const char *input) {
    int in[2];
    BENCH_REQUIRE(pipe(in) == 0, "pipe");
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, in[0], 0);
    posix_spawn_file_actions_addclose(&actions, in[1]);
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
    uint64_t start = bench_now_ns();
    pid_t pid;
    BENCH_REQUIRE(posix_spawnp(&pid, argv[0], &actions, NULL, argv, environ) == 0, argv[0]);
    close(in[0]);
    if (input) BENCH_REQUIRE(write(in[1], input, strlen(input)) == (ssize_t)strlen(input), "write");
    close(in[1]);
    int status = 0;
    waitpid(pid, &status, 0);
    uint64_t took = bench_now_ns() - start;
    posix_spawn_file_actions_destroy(&actions);
    BENCH_REQUIRE(WIFEXITED(status) && WEXITSTATUS(status) == 0, argv[0]);
    return took;
}

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: %s ROUNDS PROCESS_ROUNDS KEYCHAINKIT_TOOL WORKDIR\n", argv[0]);
        return 2;
    }
    int rounds = atoi(argv[1]), process_rounds = atoi(argv[2]);
    const char *tool = argv[3], *work = argv[4];
    char ours[512], theirs[512], credentials[512], master_file[600];
    snprintf(ours, sizeof ours, "%s/ours.keyring", work);
    snprintf(theirs, sizeof theirs, "%s/theirs.keyring", work);
    snprintf(credentials, sizeof credentials, "%s/credentials", work);
    snprintf(master_file, sizeof master_file, "%s/keychainkit.master", credentials);
    unlink(ours);
    unlink(theirs);
    BENCH_REQUIRE(mkdir(credentials, 0700) == 0 || errno == EEXIST, "mkdir");
    FILE *f = fopen(master_file, "w");
    BENCH_REQUIRE(f && fputs(MASTER, f) >= 0 && fclose(f) == 0, "master file");
    setenv("SECRET_BACKEND", "file", 1);
    setenv("SECRET_FILE_TEST_PATH", theirs, 1);
    setenv("SECRET_FILE_TEST_PASSWORD", MASTER, 1);
    setenv("CREDENTIALS_DIRECTORY", credentials, 1);
    unsetenv("DBUS_SESSION_BUS_ADDRESS");

    kk_file_options options = KK_FILE_OPTIONS_INIT;
    options.path = ours;
    options.master_source = KK_MASTER_SECRET;
    options.master = (const unsigned char *)MASTER;
    options.master_len = strlen(MASTER);
    kk_keychain *kc = NULL;
    BENCH_REQUIRE(kk_open_file(&options, &kc) == KK_OK, "kk_open_file");
    for (int i = 0; i < ITEMS; i++) {
        char account[32];
        snprintf(account, sizeof account, "account-%d", i);
        BENCH_REQUIRE(kk_set(kc, SERVICE, account, "benchmark-value", 15) == KK_OK, "kk_set");
        BENCH_REQUIRE(secret_password_store_sync(&schema, SECRET_COLLECTION_DEFAULT, "bench", "benchmark-value", NULL,
                                                 NULL, "service", SERVICE, "username", account, NULL),
                      "secret_password_store_sync");
    }

    /* Reads as a rate: many gets of an unchanged file. */
    int rate_ops = rounds * 1000;
    uint64_t start = bench_now_ns();
    for (int i = 0; i < rate_ops; i++) {
        char *value = NULL;
        size_t len = 0;
        BENCH_REQUIRE(kk_get(kc, SERVICE, "account-7", &value, &len) == KK_OK, "kk_get");
        kk_secret_free(value);
    }
    bench_report_rate("file", "file kk_get, 1 thread", rate_ops / ((bench_now_ns() - start) / 1e9), (uint64_t)rate_ops);

    bench_samples get = bench_samples_new("file", "file kk_get", (size_t)rounds);
    bench_samples lookup = bench_samples_new("file", "libsecret file lookup", (size_t)rounds);
    bench_samples set = bench_samples_new("file", "file kk_set replace", (size_t)rounds);
    bench_samples store = bench_samples_new("file", "libsecret file store replace", (size_t)rounds);
    for (int r = 0; r < rounds; r++) {
        char *value = NULL;
        size_t len = 0;
        uint64_t t = bench_now_ns();
        BENCH_REQUIRE(kk_get(kc, SERVICE, "account-3", &value, &len) == KK_OK, "kk_get");
        bench_add(&get, bench_now_ns() - t);
        kk_secret_free(value);
        t = bench_now_ns();
        gchar *found = secret_password_lookup_sync(&schema, NULL, NULL, "service", SERVICE, "username", "account-3", NULL);
        bench_add(&lookup, bench_now_ns() - t);
        BENCH_REQUIRE(found != NULL, "secret_password_lookup_sync");
        secret_password_free(found);
        t = bench_now_ns();
        BENCH_REQUIRE(kk_set(kc, SERVICE, "account-5", "another-value", 13) == KK_OK, "kk_set");
        bench_add(&set, bench_now_ns() - t);
        t = bench_now_ns();
        BENCH_REQUIRE(secret_password_store_sync(&schema, SECRET_COLLECTION_DEFAULT, "bench", "another-value", NULL,
                                                 NULL, "service", SERVICE, "username", "account-5", NULL),
                      "secret_password_store_sync");
        bench_add(&store, bench_now_ns() - t);
    }
    bench_report(&get);
    bench_report(&lookup);
    bench_report(&set);
    bench_report(&store);
    kk_close(kc);

    /* Whole processes. */
    char *ours_get[] = {(char *)tool, "--backend", "file", "--file", ours, "get", "--service", SERVICE, "account-3", NULL};
    char *ours_set[] = {(char *)tool, "--backend", "file", "--file", ours, "set", "--service", SERVICE, "account-5", NULL};
    char *theirs_get[] = {"secret-tool", "lookup", "service", SERVICE, "username", "account-3", NULL};
    char *theirs_set[] = {"secret-tool", "store", "--label=bench", "service", SERVICE, "username", "account-5", NULL};
    bench_samples process_get = bench_samples_new("file", "keychainkit file get (process)", (size_t)process_rounds);
    bench_samples process_lookup = bench_samples_new("file", "secret-tool file lookup (process)", (size_t)process_rounds);
    bench_samples process_set = bench_samples_new("file", "keychainkit file set (process)", (size_t)process_rounds);
    bench_samples process_store = bench_samples_new("file", "secret-tool file store (process)", (size_t)process_rounds);
    for (int r = 0; r < process_rounds; r++) {
        bench_add(&process_get, run_process(ours_get, NULL));
        bench_add(&process_lookup, run_process(theirs_get, NULL));
        bench_add(&process_set, run_process(ours_set, "process-value\n"));
        bench_add(&process_store, run_process(theirs_set, "process-value"));
    }
    bench_report(&process_get);
    bench_report(&process_lookup);
    bench_report(&process_set);
    bench_report(&process_store);
    return 0;
}
