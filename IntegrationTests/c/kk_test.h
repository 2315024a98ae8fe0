/* SPDX-License-Identifier: MIT */
/*
 * kk_test.h — a tiny test framework for the KeychainKit C tests.
 *
 *     #include "kk_test.h"
 *
 *     TEST(set_then_get) {                      // runs on every backend
 *         CHECK_EQ(1 + 1, 2);
 *     }
 *     TEST_ON(KT_SECRET_SERVICE, locked) {     // runs on one backend only
 *         CHECK_STATUS(kk_get(...), KK_ELOCKED);
 *     }
 *
 * Tests register themselves before main() runs (a constructor per test), so
 * a test file needs no table. The runner (kk_test.c) takes the backend as
 * argv[1] and runs every test that applies to it, each in its own child
 * process with a time limit, so a crash or a hang fails that test only.
 *
 * A CHECK records a failure with file:line and lets the test continue; a
 * test passes when it made at least one check and none failed (a test that
 * checks nothing fails). Checks may be made from any thread.
 */
#ifndef KK_TEST_H
#define KK_TEST_H

#include <keychainkit.h>

#include <stddef.h>

/** The backends a test applies to (a bit set). */
typedef enum kt_backend {
    KT_MEMORY = 1,          /**< kk_open_memory() */
    KT_SECRET_SERVICE = 2,  /**< kk_open_secret_service(), private keyring only */
    KT_KERNEL = 4,          /**< kk_open_kernel_keyring_in(KK_KERNEL_SESSION), in
                                 a new session keyring of the runner's own */
    KT_FILE = 8,            /**< kk_open_file(), a keyring file of the test's
                                 own in a private directory (kt_file_path()) */
    KT_ANY = 15,            /**< all four */
    /** The backends that report changes made elsewhere (the kernel keyring
     *  announces none). */
    KT_HEARS_OTHERS = KT_MEMORY | KT_SECRET_SERVICE | KT_FILE,
    /** The backends that store every value from empty to KK_MAX_VALUE_SIZE
     *  (the kernel keyring stores 1 to 32767 bytes: test_kernel_keyring.c). */
    KT_ANY_SIZE = KT_MEMORY | KT_SECRET_SERVICE | KT_FILE,
    /** The backends that hold items addressed by attributes (server logins). */
    KT_ATTRIBUTE_ITEMS = KT_MEMORY | KT_SECRET_SERVICE | KT_FILE
} kt_backend;

/** Defines and registers a test that runs against every backend. */
#define TEST(name) TEST_ON(KT_ANY, name)

/** Defines and registers a test that runs against `backends` only; on the
 *  other backends the runner lists it as not applicable and counts nothing. */
#define TEST_ON(backends, name)                                              \
    static void kt_test_##name(void);                                        \
    __attribute__((constructor)) static void kt_register_##name(void)        \
    {                                                                        \
        kt_register(#name, (backends), kt_test_##name, __FILE__, __LINE__);  \
    }                                                                        \
    static void kt_test_##name(void)

/** Defines and registers a test for `backends` that does not run against
 *  the Secret Service server `server` (KEYCHAINKIT_TEST_SERVER: "kwallet",
 *  "keepassxc", "fake-oo7", ...; gnome-keyring when unset), or any of
 *  several separated by "|": there the runner lists it as not applicable,
 *  with `reason` (a limitation of that server), and counts nothing. */
#define TEST_EXCEPT_ON_SERVER(backends, server, reason, name)                 \
    static void kt_test_##name(void);                                        \
    __attribute__((constructor)) static void kt_register_##name(void)        \
    {                                                                        \
        kt_register(#name, (backends), kt_test_##name, __FILE__, __LINE__);  \
        kt_exclude_server(#name, (server), (reason));                        \
    }                                                                        \
    static void kt_test_##name(void)

/** Defines and registers a test for `backends` that runs only against the
 *  Secret Service server `server` ("gnome-keyring", "kwallet",
 *  "keepassxc", the fake's "fake" or "fake-PERSONALITY"), or one of
 *  several separated by "|"; elsewhere the runner lists it as not
 *  applicable. */
#define TEST_ONLY_ON_SERVER(backends, server, name)                           \
    static void kt_test_##name(void);                                        \
    __attribute__((constructor)) static void kt_register_##name(void)        \
    {                                                                        \
        kt_register(#name, (backends), kt_test_##name, __FILE__, __LINE__);  \
        kt_only_on_server(#name, (server), 0);                               \
    }                                                                        \
    static void kt_test_##name(void)

/** Defines and registers a test that makes the Secret Service server
 *  `server` show its prompt dialogs. It runs only in a dialog run
 *  (KEYCHAINKIT_TEST_DIALOGS=1, on a fresh service: a dialog can leave the
 *  server in a state other tests must not meet — KeePassXC refuses every
 *  later Lock), and a dialog run runs only these tests. Dialogs on a
 *  private display (scripts/with-display.sh) are answered with xdotool. */
#define TEST_DIALOGS_ON_SERVER(backends, server, name)                        \
    static void kt_test_##name(void);                                        \
    __attribute__((constructor)) static void kt_register_##name(void)        \
    {                                                                        \
        kt_register(#name, (backends), kt_test_##name, __FILE__, __LINE__);  \
        kt_only_on_server(#name, (server), 1);                               \
    }                                                                        \
    static void kt_test_##name(void)

/** Records a check of `cond`; evaluates to 1 when it held, else 0. */
#define CHECK(cond) kt_check((cond) ? 1 : 0, __FILE__, __LINE__, "CHECK(%s)", #cond)

/** Checks that two integers (of any integer type, compared as long long)
 *  are equal, printing both values on failure; evaluates to 1 when they
 *  were. Each side is evaluated once. */
#define CHECK_EQ(a, b) \
    kt_check_eq((long long)(a), (long long)(b), __FILE__, __LINE__, #a, #b)

/** Checks that a call returned the status `want`, printing both statuses by
 *  name and kk_error_message() on failure. `expr` is evaluated once. */
#define CHECK_STATUS(expr, want)                                              \
    kt_check_status((int)(expr), (int)(want), __FILE__, __LINE__, #expr)

/** Checks that two C strings are equal; either may be NULL (then both must
 *  be). */
#define CHECK_STR_EQ(a, b) kt_check_str_eq((a), (b), __FILE__, __LINE__, #a, #b)

/** Checks a condition and returns from the (void) function when it failed:
 *  for preconditions without which the rest of the test cannot run. */
#define REQUIRE(cond)                                                         \
    do {                                                                      \
        if (!CHECK(cond)) return;                                             \
    } while (0)

/** Registers a test; used by TEST_ON. */
void kt_register(const char *name, unsigned backends, void (*fn)(void),
                 const char *file, int line);

/** Marks the registered test `name` not applicable on `server`; used by
 *  TEST_EXCEPT_ON_SERVER. */
void kt_exclude_server(const char *name, const char *server, const char *reason);

/** Restricts the registered test `name` to `server`, and to dialog runs
 *  when `shows_dialogs`; used by TEST_ONLY_ON_SERVER and
 *  TEST_DIALOGS_ON_SERVER. */
void kt_only_on_server(const char *name, const char *server, int shows_dialogs);

/** The Secret Service server the runner tests: KEYCHAINKIT_TEST_SERVER, or
 *  "gnome-keyring" when unset. */
const char *kt_server(void);

/** Records one check made at file:line; prints the printf-style message as a
 *  failure when `ok` is 0. Returns `ok`. Thread-safe. */
int kt_check(int ok, const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/** The implementation of CHECK_EQ. */
int kt_check_eq(long long a, long long b, const char *file, int line, const char *a_text,
                const char *b_text);

/** The implementation of CHECK_STATUS. */
int kt_check_status(int got, int want, const char *file, int line, const char *expr);

/** The implementation of CHECK_STR_EQ. */
int kt_check_str_eq(const char *a, const char *b, const char *file, int line,
                    const char *a_text, const char *b_text);

/** The backend the runner was started for. */
kt_backend kt_current_backend(void);

/** The name of the running test. */
const char *kt_test_name(void);

/** The last path component of the runner's argv[0]: the library's default
 *  service for this process. */
const char *kt_program_name(void);

/** The symbolic name of a status ("KK_ENOTFOUND"), or "(unknown)". */
const char *kt_status_name(int status);

/** A monotonic clock, in seconds. */
double kt_now(void);

#endif /* KK_TEST_H */
