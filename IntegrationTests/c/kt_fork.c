/* SPDX-License-Identifier: MIT */
/*
 * kt_fork.c — see kt_fork.h.
 */
#define _POSIX_C_SOURCE 200809L

#include "kt_fork.h"

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int child_failures;

pid_t kt_fork_with_alarm(unsigned alarm_seconds)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        child_failures = 0;
        alarm(alarm_seconds);
    }
    return pid;
}

pid_t kt_fork(void) { return kt_fork_with_alarm(KT_CHILD_ALARM); }

int kt_child_count(int ok)
{
    if (!ok) child_failures++;
    return ok;
}

int kt_child_failures(void) { return child_failures; }

void kt_child_exit(void)
{
    if (child_failures)
        printf("    (child %ld: %d failed check%s)\n", (long)getpid(), child_failures,
               child_failures == 1 ? "" : "s");
    fflush(NULL);
    /* _Exit, not _exit: the sanitizer build interposes _exit() to run
     * LeakSanitizer's check (IntegrationTests/sanitizers/leak_check_at_exit.c), which
     * in a child forked while another thread of the parent held the
     * allocator's lock waits for that lock forever, and which would count
     * what only the parent's other threads referenced as leaked. */
    _Exit(child_failures == 0 ? 0 : 1);
}

void kt_sleep_ms(unsigned milliseconds)
{
    struct timespec ts = {(time_t)(milliseconds / 1000), (long)(milliseconds % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

int kt_check_child_at(const char *file, int line, pid_t pid, const char *what, unsigned seconds)
{
    double deadline = kt_now() + seconds;
    int status = 0;
    for (;;) {
        pid_t got = waitpid(pid, &status, WNOHANG);
        if (got == pid) break;
        if (got < 0 && errno != EINTR)
            return kt_check(0, file, line, "waitpid(%s): %s", what, strerror(errno));
        if (kt_now() > deadline) {
            kill(pid, SIGKILL);
            while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
            }
            return kt_check(0, file, line, "%s (pid %ld) still ran after %u s: killed", what,
                            (long)pid, seconds);
        }
        kt_sleep_ms(2);
    }
    if (WIFEXITED(status))
        return kt_check(WEXITSTATUS(status) == 0, file, line,
                        "%s (pid %ld) exited with status %d (its failures are above)", what,
                        (long)pid, WEXITSTATUS(status));
    int sig = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    return kt_check(0, file, line, "%s (pid %ld) was killed by signal %d (%s)%s", what, (long)pid,
                    sig, strsignal(sig),
                    sig == SIGALRM ? ": it hung until its alarm" : "");
}

int kt_check_got_at(const char *file, int line, kk_keychain *kc, const char *service,
                    const char *account, const char *want)
{
    char *value = NULL;
    size_t len = 0;
    int status = kk_get(kc, service, account, &value, &len);
    int ok;
    if (want == NULL) {
        ok = kt_check_status(status, KK_ENOTFOUND, file, line, "kk_get(), expecting absent");
        if (!ok && status == KK_OK)
            kt_check(0, file, line, "  (it read \"%.*s\" for account \"%s\")", (int)len,
                     value ? value : "", account);
    } else if (!kt_check_status(status, KK_OK, file, line, "kk_get(), expecting a value")) {
        ok = 0;
    } else {
        ok = kt_check(value != NULL && len == strlen(want) && memcmp(value, want, len) == 0, file,
                      line, "kk_get(\"%s\") read \"%.*s\", expected \"%s\"", account, (int)len,
                      value ? value : "", want);
    }
    kk_secret_free(value);
    return ok;
}

int kt_write_all(int fd, const void *data, size_t size)
{
    const char *p = data;
    while (size > 0) {
        ssize_t n = write(fd, p, size);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return 0;
        p += n;
        size -= (size_t)n;
    }
    return 1;
}

int kt_read_all(int fd, void *data, size_t size, int timeout_ms)
{
    char *p = data;
    double deadline = kt_now() + timeout_ms / 1000.0;
    while (size > 0) {
        int left = (int)((deadline - kt_now()) * 1000);
        if (left <= 0) return 0;
        struct pollfd pfd = {.fd = fd, .events = POLLIN};
        int ready = poll(&pfd, 1, left);
        if (ready < 0 && errno == EINTR) continue;
        if (ready <= 0) return 0;
        ssize_t n = read(fd, p, size);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return 0;
        p += n;
        size -= (size_t)n;
    }
    return 1;
}
