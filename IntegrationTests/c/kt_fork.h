/* SPDX-License-Identifier: MIT */
/*
 * kt_fork.h — fork()ed children for the C tests.
 *
 *     pid_t pid = kt_fork();              // the child is under alarm(10)
 *     REQUIRE(pid >= 0);
 *     if (pid == 0) {
 *         KT_CHILD(CHECK_GOT(kc, svc, "acct", "value"));
 *         kt_child_exit();                // status 0 only if no KT_CHILD failed
 *     }
 *     CHECK_CHILD(pid, "the child");      // bounded wait; a hang is a failure
 *
 * The runner counts checks per test process, so a child's checks are lost
 * to it: a child counts its own failures (KT_CHILD) into its exit status,
 * and the parent checks that status. A child that hangs is killed by its
 * alarm, or by the parent after KT_CHILD_WAIT seconds, and is a failure.
 */
#ifndef KT_FORK_H
#define KT_FORK_H

#include "kk_test.h"

#include <sys/types.h>

/** Seconds a child may run before its alarm kills it. */
#define KT_CHILD_ALARM 10

/** Seconds the parent waits for a child before killing it. */
#define KT_CHILD_WAIT 20

/** Flushes stdio (so the child does not repeat buffered output) and forks;
 *  in the child, arms alarm(alarm_seconds) and clears its failure count.
 *  Returns what fork() returned. */
pid_t kt_fork_with_alarm(unsigned alarm_seconds);

/** kt_fork_with_alarm(KT_CHILD_ALARM). */
pid_t kt_fork(void);

/** In a child: counts a failed check. `ok` is a CHECK's result; evaluates
 *  to it. */
#define KT_CHILD(ok) kt_child_count(ok)
int kt_child_count(int ok);

/** The number of KT_CHILD checks that failed in this child so far. */
int kt_child_failures(void);

/** Ends a child: flushes stdio and _Exit()s with 0 when none of its
 *  KT_CHILD checks failed, else 1. Runs no atexit handler, nor the
 *  sanitizer build's leak check (see kt_fork.c). */
_Noreturn void kt_child_exit(void);

/** In the parent: waits for child `pid` at most `seconds`, then SIGKILLs
 *  it; checks that it exited with status 0 and prints how it ended
 *  otherwise (signal, alarm, hang, exit status). Returns 1 when it did. */
#define CHECK_CHILD(pid, what) kt_check_child_at(__FILE__, __LINE__, (pid), (what), KT_CHILD_WAIT)
int kt_check_child_at(const char *file, int line, pid_t pid, const char *what, unsigned seconds);

/** Checks that kk_get(kc, service, account) returns KK_OK and exactly the
 *  string `want` (without its NUL), or KK_ENOTFOUND when `want` is NULL;
 *  frees the value. Evaluates to 1 when it did, so it can be KT_CHILD'd. */
#define CHECK_GOT(kc, service, account, want) \
    kt_check_got_at(__FILE__, __LINE__, (kc), (service), (account), (want))
int kt_check_got_at(const char *file, int line, kk_keychain *kc, const char *service,
                    const char *account, const char *want);

/** Writes all `size` bytes to `fd` (a pipe between parent and child),
 *  retrying after EINTR; 1 on success, 0 on failure. */
int kt_write_all(int fd, const void *data, size_t size);

/** Reads exactly `size` bytes from `fd` within `timeout_ms`; 0 on EOF,
 *  time-out or error, so a silent peer never blocks a test. */
int kt_read_all(int fd, void *data, size_t size, int timeout_ms);

/** Sleeps `milliseconds`. */
void kt_sleep_ms(unsigned milliseconds);

#endif /* KT_FORK_H */
