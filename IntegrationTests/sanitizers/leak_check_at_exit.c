/* SPDX-License-Identifier: MIT */
/*
 * leak_check_at_exit.c — linked into the sanitizer build of the C test
 * runner only (IntegrationTests/sanitizers/run.sh); not part of the runner's sources.
 *
 * The runner (IntegrationTests/c/kk_test.c) runs each test in a forked child
 * that ends with _exit(), and _exit() skips the atexit handler through
 * which LeakSanitizer checks for leaks: without this file, leaks made by a
 * test (or by the library during it) would never be reported. This
 * definition of _exit() interposes the C library's (the executable's
 * symbols come first): it runs the leak check, turns a passing status into
 * 23 (LSan's usual exit code) when leaks were found, so the runner counts
 * that test as failed, and ends the process as _exit() would.
 */
#define _GNU_SOURCE
#include <sanitizer/lsan_interface.h>
#include <sys/syscall.h>
#include <unistd.h>

void _exit(int status)
{
    if (__lsan_do_recoverable_leak_check() != 0 && status == 0) status = 23;
    syscall(SYS_exit_group, status);
    __builtin_unreachable();
}
