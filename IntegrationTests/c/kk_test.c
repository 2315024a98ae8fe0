/* SPDX-License-Identifier: MIT */
/*
 * kk_test.c — the test runner: main() and the framework of kk_test.h.
 *
 *     kk_tests memory|secret-service|kernel [TEST_NAME...]
 *
 * Runs every registered test that applies to the backend (or only the named
 * ones), each in a forked child with a time limit, prints one line per test
 * and, as its last line, exactly "N passed, N failed". Exits 0 only when
 * at least one test ran and none failed.
 *
 * The Secret Service backend is refused (a failure, not a skip) unless
 * KEYCHAINKIT_TEST_KEYRING is "private" or "fake", i.e. unless the runner
 * was started by scripts/with-secret-service.sh (or the KWallet, KeePassXC
 * or fake server harnesses beside it): the tests lock, unlock and fill the
 * keyring, which must never be the user's own.
 *
 * On the kernel backend the runner first joins a new, anonymous session
 * keyring, which every test's child inherits: the tests' keys live there
 * (kt_open() uses KK_KERNEL_SESSION) and go with the runner, never mixing
 * with the user's own session keyring or another run's. Tests of the other
 * keyrings remove what they add.
 *
 * KK_TEST_NO_FORK=1 runs the tests in-process (for gdb or valgrind);
 * KK_TEST_TIME_LIMIT=SECONDS changes the per-test limit (default 120).
 */
#define _POSIX_C_SOURCE 200809L
#define _DEFAULT_SOURCE /* syscall() */

#include "kk_test.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/** Seconds a test may run before its child is killed, by default. */
#define KT_TIME_LIMIT 120
#define KT_MAX_TESTS 256

typedef struct kt_test {
    const char *name;
    unsigned backends;
    void (*fn)(void);
    const char *file;
    int line;
    const char *excluded_server; /* NULL: none */
    const char *exclusion_reason;
    const char *only_server; /* NULL: any */
    int shows_dialogs;
} kt_test;

static kt_test tests[KT_MAX_TESTS];
static int test_count;
static kt_backend backend;
static const char *current_test = "";
static const char *program_name = "";
static atomic_int checks_made;
static atomic_int checks_failed;
static unsigned time_limit = KT_TIME_LIMIT;

void kt_register(const char *name, unsigned backends, void (*fn)(void),
                 const char *file, int line)
{
    if (test_count == KT_MAX_TESTS) {
        fprintf(stderr, "kk_test: more than %d tests; raise KT_MAX_TESTS\n", KT_MAX_TESTS);
        abort();
    }
    tests[test_count++] = (kt_test){name, backends, fn, file, line, NULL, NULL, NULL, 0};
}

/** The registered test `name` (registered just before); aborts if none. */
static kt_test *registered(const char *name)
{
    for (int i = test_count - 1; i >= 0; i--)
        if (strcmp(tests[i].name, name) == 0) return &tests[i];
    abort();
}

void kt_exclude_server(const char *name, const char *server, const char *reason)
{
    kt_test *t = registered(name);
    t->excluded_server = server;
    t->exclusion_reason = reason;
}

void kt_only_on_server(const char *name, const char *server, int shows_dialogs)
{
    kt_test *t = registered(name);
    t->only_server = server;
    t->shows_dialogs = shows_dialogs;
}

/** Whether kt_server() is one of `servers`, names separated by "|". */
static int server_listed(const char *servers)
{
    const char *server = kt_server();
    size_t length = strlen(server);
    for (const char *name = servers;; name++) {
        const char *end = strchr(name, '|');
        size_t listed = end != NULL ? (size_t)(end - name) : strlen(name);
        if (listed == length && strncmp(name, server, length) == 0) return 1;
        if (end == NULL) return 0;
        name = end;
    }
}

const char *kt_server(void)
{
    const char *server = getenv("KEYCHAINKIT_TEST_SERVER");
    return server != NULL && server[0] != '\0' ? server : "gnome-keyring";
}

int kt_check(int ok, const char *file, int line, const char *fmt, ...)
{
    atomic_fetch_add(&checks_made, 1);
    if (ok) return 1;
    atomic_fetch_add(&checks_failed, 1);
    char message[1024];
    va_list args;
    va_start(args, fmt);
    vsnprintf(message, sizeof message, fmt, args);
    va_end(args);
    /* One fprintf per failure: stdio locks the stream, so lines from
     * several threads do not interleave. */
    fprintf(stdout, "    %s:%d: failed: %s\n", file, line, message);
    return 0;
}

int kt_check_eq(long long a, long long b, const char *file, int line, const char *a_text,
                const char *b_text)
{
    return kt_check(a == b, file, line, "CHECK_EQ(%s, %s): %lld != %lld", a_text, b_text, a, b);
}

int kt_check_status(int got, int want, const char *file, int line, const char *expr)
{
    if (got == want) return kt_check(1, file, line, "%s", expr);
    /* kk_error_message() is read before any other kk_ call on this thread. */
    const char *detail = kk_error_message();
    return kt_check(0, file, line, "%s returned %s (%d), expected %s (%d); kk_error_message: \"%s\"",
                    expr, kt_status_name(got), got, kt_status_name(want), want,
                    detail ? detail : "(NULL)");
}

int kt_check_str_eq(const char *a, const char *b, const char *file, int line,
                    const char *a_text, const char *b_text)
{
    int ok = (a == NULL || b == NULL) ? a == b : strcmp(a, b) == 0;
    return kt_check(ok, file, line, "CHECK_STR_EQ(%s, %s): \"%s\" != \"%s\"", a_text, b_text,
                    a ? a : "(NULL)", b ? b : "(NULL)");
}

kt_backend kt_current_backend(void) { return backend; }

const char *kt_test_name(void) { return current_test; }

const char *kt_program_name(void) { return program_name; }

const char *kt_status_name(int status)
{
    switch (status) {
    case KK_OK: return "KK_OK";
    case KK_ENOTFOUND: return "KK_ENOTFOUND";
    case KK_EDUPLICATE: return "KK_EDUPLICATE";
    case KK_ELOCKED: return "KK_ELOCKED";
    case KK_EDENIED: return "KK_EDENIED";
    case KK_EUNAVAILABLE: return "KK_EUNAVAILABLE";
    case KK_ECANCELED: return "KK_ECANCELED";
    case KK_EINVAL: return "KK_EINVAL";
    case KK_ENOMEM: return "KK_ENOMEM";
    case KK_EUNKNOWN: return "KK_EUNKNOWN";
    default: return "(unknown)";
    }
}

double kt_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/** Runs one test in this process; returns 1 when it passed. */
static int run_here(const kt_test *t)
{
    current_test = t->name;
    atomic_store(&checks_made, 0);
    atomic_store(&checks_failed, 0);
    t->fn();
    int made = atomic_load(&checks_made), failed = atomic_load(&checks_failed);
    if (made == 0) {
        printf("    %s:%d: failed: the test made no check\n", t->file, t->line);
        return 0;
    }
    return failed == 0;
}

/** Runs one test in a child process; returns 1 when it passed. */
static int run_forked(const kt_test *t)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0) {
        perror("kk_test: fork");
        return 0;
    }
    if (pid == 0) {
        alarm(time_limit + 60); /* a backstop: the parent stops it first */
        int passed = run_here(t);
        fflush(NULL);
        _exit(passed ? 0 : 1);
    }
    /* Waits at most time_limit; a test still running then is a hang: every
     * thread's stack is printed (gdb, when installed) before it is killed,
     * so that a rare hang says where it waited. */
    int status = 0;
    double deadline = kt_now() + time_limit;
    pid_t done;
    while ((done = waitpid(pid, &status, WNOHANG)) == 0 && kt_now() < deadline) {
        struct timespec pause = {0, 20 * 1000 * 1000};
        nanosleep(&pause, NULL);
    }
    if (done == 0) {
        char command[160];
        snprintf(command, sizeof command,
                 "command -v gdb >/dev/null && gdb -p %d -batch -nx -ex 'thread apply all bt' 2>&1 | "
                 "grep -E '^(Thread|#)' | sed 's/^/    | /'", (int)pid);
        printf("    %s:%d: failed: timed out after %u s; its threads:\n", t->file, t->line, time_limit);
        fflush(stdout);
        if (system(command) != 0) printf("    (no backtrace: gdb is missing or could not attach)\n");
        kill(pid, SIGKILL);
        while (waitpid(pid, &status, 0) < 0) {
            /* EINTR only */
        }
        return 0;
    }
    if (WIFEXITED(status)) return WEXITSTATUS(status) == 0;
    if (WIFSIGNALED(status)) {
        int sig = WTERMSIG(status);
        if (sig == SIGALRM)
            printf("    %s:%d: failed: timed out after %u s\n", t->file, t->line, time_limit);
        else
            printf("    %s:%d: failed: killed by signal %d (%s)\n", t->file, t->line, sig, strsignal(sig));
    }
    return 0;
}

static int by_place(const void *a, const void *b)
{
    const kt_test *x = a, *y = b;
    int c = strcmp(x->file, y->file);
    return c != 0 ? c : x->line - y->line;
}

static int selected(const kt_test *t, int argc, char **argv)
{
    if (argc <= 2) return 1;
    for (int i = 2; i < argc; i++)
        if (strcmp(argv[i], t->name) == 0) return 1;
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2 || (strcmp(argv[1], "memory") != 0 && strcmp(argv[1], "secret-service") != 0 &&
                     strcmp(argv[1], "kernel") != 0 && strcmp(argv[1], "file") != 0)) {
        fprintf(stderr, "usage: %s memory|secret-service|kernel|file [TEST_NAME...]\n", argv[0]);
        printf("0 passed, 1 failed\n");
        return 2;
    }
    backend = strcmp(argv[1], "memory") == 0 ? KT_MEMORY
              : strcmp(argv[1], "kernel") == 0 ? KT_KERNEL
              : strcmp(argv[1], "file") == 0   ? KT_FILE
                                               : KT_SECRET_SERVICE;
    const char *slash = strrchr(argv[0], '/');
    program_name = slash ? slash + 1 : argv[0];

    if (backend == KT_SECRET_SERVICE) {
        const char *keyring = getenv("KEYCHAINKIT_TEST_KEYRING");
        if (keyring == NULL || (strcmp(keyring, "private") != 0 && strcmp(keyring, "fake") != 0)) {
            printf("FAIL refusing the Secret Service backend: KEYCHAINKIT_TEST_KEYRING is not "
                   "\"private\" nor \"fake\"; run inside scripts/with-secret-service.sh (or "
                   "another harness of scripts/)\n");
            printf("0 passed, 1 failed\n");
            return 1;
        }
    }

    /* KEYCTL_JOIN_SESSION_KEYRING (1) with no name: a new anonymous one. */
    if (backend == KT_KERNEL && syscall(SYS_keyctl, 1, NULL) < 0) {
        printf("FAIL cannot join a new session keyring: %s\n", strerror(errno));
        printf("0 passed, 1 failed\n");
        return 1;
    }

    /* Each test's keyring file goes to a private directory, removed at the end. */
    char file_directory[] = "/tmp/kk-file-tests.XXXXXX";
    if (backend == KT_FILE) {
        if (mkdtemp(file_directory) == NULL) {
            printf("FAIL cannot make a directory for the keyring files: %s\n", strerror(errno));
            printf("0 passed, 1 failed\n");
            return 1;
        }
        setenv("KT_FILE_DIRECTORY", file_directory, 1);
    }

    const char *limit = getenv("KK_TEST_TIME_LIMIT");
    if (limit != NULL && atoi(limit) > 0) time_limit = (unsigned)atoi(limit);
    int fork_each = getenv("KK_TEST_NO_FORK") == NULL || strcmp(getenv("KK_TEST_NO_FORK"), "1") != 0;
    qsort(tests, (size_t)test_count, sizeof tests[0], by_place);

    const char *dialog_run = getenv("KEYCHAINKIT_TEST_DIALOGS");
    int dialogs = dialog_run != NULL && strcmp(dialog_run, "1") == 0;

    /* No kk_ call here: the parent stays untouched by the library and forks. */
    printf("KeychainKit C tests, backend %s\n", argv[1]);
    int passed = 0, failed = 0;
    for (int i = 0; i < test_count; i++) {
        const kt_test *t = &tests[i];
        if (!selected(t, argc, argv)) continue;
        if (!(t->backends & backend)) {
            printf("n/a  %s (not applicable to %s)\n", t->name, argv[1]);
            continue;
        }
        if (backend == KT_SECRET_SERVICE && t->excluded_server != NULL && server_listed(t->excluded_server)) {
            printf("n/a  %s (not on %s: %s)\n", t->name, kt_server(), t->exclusion_reason);
            continue;
        }
        if (t->shows_dialogs != dialogs) {
            printf("n/a  %s (%s)\n", t->name,
                   dialogs ? "not a dialog test" : "shows dialogs: KEYCHAINKIT_TEST_DIALOGS=1 runs it");
            continue;
        }
        if (t->only_server != NULL && (backend != KT_SECRET_SERVICE || !server_listed(t->only_server))) {
            printf("n/a  %s (only on %s)\n", t->name, t->only_server);
            continue;
        }
        double start = kt_now();
        int ok = fork_each ? run_forked(t) : run_here(t);
        printf("%s %s (%.2f s)\n", ok ? "PASS" : "FAIL", t->name, kt_now() - start);
        if (ok) passed++; else failed++;
        fflush(stdout);
    }
    if (backend == KT_FILE) {
        char command[100];
        snprintf(command, sizeof command, "rm -rf '%s'", file_directory);
        if (system(command) != 0) printf("(could not remove %s)\n", file_directory);
    }
    if (passed + failed == 0) printf("no test ran\n");
    printf("%d passed, %d failed\n", passed, failed);
    return (failed == 0 && passed > 0) ? 0 : 1;
}
