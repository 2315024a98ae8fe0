/* SPDX-License-Identifier: MIT */
/* Loading libkeychainkit.so: dlopen plus the first call, in a process that
 * does not link it. A library is loaded cold only once per process, so each
 * sample is a fresh process (this program run again with --child), which
 * times its own dlopen + kk_open_memory and writes the nanoseconds to a
 * pipe; the parent reports the median over PROCESSES of them.
 * Usage: bench_loading LIBRARY_PATH [PROCESSES]   (default 20) */
#include "bench_common.h"

#include <dlfcn.h>
#include <keychainkit.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* In the child: times loading and the first call, prints the nanoseconds. */
static int child(const char *path) {
    uint64_t start = bench_now_ns();
    void *library = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    BENCH_REQUIRE(library != NULL, "dlopen");
    kk_status (*open_memory)(kk_keychain **) = (kk_status (*)(kk_keychain **))dlsym(library, "kk_open_memory");
    void (*close_handle)(kk_keychain *) = (void (*)(kk_keychain *))dlsym(library, "kk_close");
    BENCH_REQUIRE(open_memory != NULL && close_handle != NULL, "dlsym");
    kk_keychain *kc;
    BENCH_REQUIRE(open_memory(&kc) == KK_OK, "first call");
    uint64_t elapsed = bench_now_ns() - start;
    close_handle(kc);
    printf("%llu\n", (unsigned long long)elapsed);
    return 0;
}

/* Runs one fresh process and returns what it measured. */
static uint64_t one_process(const char *path) {
    int fds[2];
    BENCH_REQUIRE(pipe(fds) == 0, "pipe");
    fflush(stdout);
    pid_t pid = fork();
    BENCH_REQUIRE(pid >= 0, "fork");
    if (pid == 0) {
        dup2(fds[1], STDOUT_FILENO);
        close(fds[0]);
        close(fds[1]);
        execl("/proc/self/exe", "bench_loading", "--child", path, (char *)NULL);
        _exit(127);
    }
    close(fds[1]);
    FILE *from_child = fdopen(fds[0], "r");
    BENCH_REQUIRE(from_child != NULL, "fdopen");
    unsigned long long ns = 0;
    int read = fscanf(from_child, "%llu", &ns);
    fclose(from_child);
    int status = 0;
    BENCH_REQUIRE(waitpid(pid, &status, 0) == pid, "waitpid");
    BENCH_REQUIRE(WIFEXITED(status) && WEXITSTATUS(status) == 0 && read == 1, "child process");
    return ns;
}

int main(int argc, char **argv) {
    if (argc == 3 && strcmp(argv[1], "--child") == 0) return child(argv[2]);
    BENCH_REQUIRE(argc == 2 || argc == 3, "usage: bench_loading LIBRARY_PATH [PROCESSES]");
    int processes = argc == 3 ? atoi(argv[2]) : 20;
    BENCH_REQUIRE(processes > 0, "PROCESSES argument");
    bench_samples s = bench_samples_new("loading", "dlopen + first call", (size_t)processes);
    for (int i = 0; i < processes; i++) bench_add(&s, one_process(argv[1]));
    bench_report(&s);
    return 0;
}
