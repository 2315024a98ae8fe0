/* SPDX-License-Identifier: MIT */
/* Writes per second with several writer processes at once: kk_set against
 * libsecret's secret_password_store_sync, against the same Secret Service.
 *
 * Each writer is a process with its own connection (opened before the
 * clock starts); all start together and each stores WRITES values. Two
 * cases: every writer on one key, and each writer on a key of its own.
 * The sides alternate, REPETITIONS times, starting with a different side
 * each time; the rate is all writes over all the time a side took. After
 * each run, outside the timed region, every key is checked to have exactly
 * one item: a rate bought with duplicates would be no rate.
 *
 * Usage: bench_contention WRITES_PER_WRITER */
#include "bench_common.h"

#define SECRET_API_SUBJECT_TO_CHANGE 1
#include <keychainkit.h>
#include <libsecret/secret.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define WRITERS 4
#define REPETITIONS 3

/* libsecret addressing the same items as KeychainKit: service + username. */
static const SecretSchema schema = {
    "io.github.keychainkit.Password", SECRET_SCHEMA_DONT_MATCH_NAME,
    {{"service", SECRET_SCHEMA_ATTRIBUTE_STRING}, {"username", SECRET_SCHEMA_ATTRIBUTE_STRING}, {NULL, 0}},
    0, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
};

typedef enum { KEYCHAINKIT, LIBSECRET } library;

/* The key writer `writer` writes: "shared", or one of its own. */
static void key_of(char *out, size_t size, int writer, int shared) {
    if (shared) snprintf(out, size, "shared");
    else snprintf(out, size, "own-%d", writer);
}

/* A writer process: connects, says it is ready, waits for the start, writes. */
static _Noreturn void writer(library lib, const char *service, int writer_index, int shared, int writes,
                             int ready, int go) {
    char account[32], value[64];
    key_of(account, sizeof account, writer_index, shared);
    kk_keychain *kc = NULL;
    GError *error = NULL;
    if (lib == KEYCHAINKIT) {
        BENCH_REQUIRE(kk_open_secret_service(&kc) == KK_OK, "kk_open_secret_service");
        BENCH_REQUIRE(kk_exists(kc, service, "connect") == KK_ENOTFOUND, "kk_exists (connecting)");
    } else {
        gchar *none = secret_password_lookup_sync(&schema, NULL, &error, "service", service, "username", "connect", NULL);
        BENCH_REQUIRE(none == NULL && error == NULL, "secret_password_lookup_sync (connecting)");
    }
    char byte = 'r';
    BENCH_REQUIRE(write(ready, &byte, 1) == 1 && read(go, &byte, 1) == 1, "rendezvous");
    for (int i = 0; i < writes; i++) {
        snprintf(value, sizeof value, "writer %d write %d", writer_index, i);
        if (lib == KEYCHAINKIT) {
            BENCH_REQUIRE(kk_set(kc, service, account, value, strlen(value)) == KK_OK, "kk_set");
        } else {
            gboolean ok = secret_password_store_sync(&schema, SECRET_COLLECTION_DEFAULT, "bench", value, NULL, &error,
                                                     "service", service, "username", account, NULL);
            BENCH_REQUIRE(ok && error == NULL, "secret_password_store_sync");
        }
    }
    if (kc != NULL) kk_close(kc);
    _exit(0);
}

/* Runs WRITERS writers of `lib` on the service; returns the nanoseconds from
 * the start until the last one finished. */
static uint64_t run(library lib, const char *service, int shared, int writes) {
    int ready[2], go[2];
    BENCH_REQUIRE(pipe(ready) == 0 && pipe(go) == 0, "pipe");
    pid_t pids[WRITERS];
    for (int w = 0; w < WRITERS; w++) {
        fflush(stdout);
        pids[w] = fork();
        BENCH_REQUIRE(pids[w] >= 0, "fork");
        if (pids[w] == 0) writer(lib, service, w, shared, writes, ready[1], go[0]);
    }
    char bytes[WRITERS];
    for (int got = 0; got < WRITERS;) {
        ssize_t n = read(ready[0], bytes, sizeof bytes - (size_t)got);
        BENCH_REQUIRE(n > 0, "writers ready");
        got += (int)n;
    }
    memset(bytes, 'g', sizeof bytes);
    uint64_t t0 = bench_now_ns();
    BENCH_REQUIRE(write(go[1], bytes, sizeof bytes) == (ssize_t)sizeof bytes, "start");
    for (int w = 0; w < WRITERS; w++) {
        int status = 0;
        BENCH_REQUIRE(waitpid(pids[w], &status, 0) == pids[w] && WIFEXITED(status) && WEXITSTATUS(status) == 0,
                      "a writer process");
    }
    uint64_t elapsed = bench_now_ns() - t0;
    close(ready[0]); close(ready[1]); close(go[0]); close(go[1]);
    return elapsed;
}

/* Checks (outside the timed region, in a child: the parent stays free of
 * GLib and the library across its forks) that each written key has one
 * item, then removes them. */
static void check_and_clean(const char *service, int shared) {
    pid_t pid = fork();
    BENCH_REQUIRE(pid >= 0, "fork");
    if (pid == 0) {
        for (int w = 0; w < (shared ? 1 : WRITERS); w++) {
            char account[32];
            key_of(account, sizeof account, w, shared);
            GError *error = NULL;
            GList *items = secret_password_search_sync(&schema, SECRET_SEARCH_ALL, NULL, &error,
                                                       "service", service, "username", account, NULL);
            BENCH_REQUIRE(error == NULL && g_list_length(items) == 1, "exactly one item per key after the run");
            g_list_free_full(items, g_object_unref);
            secret_password_clear_sync(&schema, NULL, &error, "service", service, "username", account, NULL);
            BENCH_REQUIRE(error == NULL, "secret_password_clear_sync");
        }
        _exit(0);
    }
    int status = 0;
    BENCH_REQUIRE(waitpid(pid, &status, 0) == pid && WIFEXITED(status) && WEXITSTATUS(status) == 0, "the check");
}

int main(int argc, char **argv) {
    int writes = argc > 1 ? atoi(argv[1]) : 50;
    BENCH_REQUIRE(writes > 0, "WRITES_PER_WRITER argument");
    static const char *const names[2][2] = {
        {"kk_set, 4 processes, distinct keys", "kk_set, 4 processes, one key"},
        {"libsecret store, 4 processes, distinct keys", "libsecret store, 4 processes, one key"},
    };
    for (int shared = 0; shared <= 1; shared++) {
        uint64_t total[2] = {0, 0};
        for (int repetition = 0; repetition < REPETITIONS; repetition++) {
            for (int k = 0; k < 2; k++) {
                library lib = (library)((repetition + k) % 2);
                char service[64];
                snprintf(service, sizeof service, "kkbench.contention.%d.%d.%d", (int)getpid(), shared, repetition);
                total[lib] += run(lib, service, shared, writes);
                check_and_clean(service, shared);
            }
        }
        uint64_t ops = (uint64_t)WRITERS * (uint64_t)writes * REPETITIONS;
        for (int lib = 0; lib < 2; lib++) {
            bench_report_rate("contention", names[lib][shared], (double)ops * 1e9 / (double)total[lib], ops);
        }
    }
    return 0;
}
