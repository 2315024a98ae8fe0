/* SPDX-License-Identifier: MIT */
/* How long a change made by another process takes to reach an observer:
 * from the moment the writer's kk_set/kk_remove returned (acknowledged) to
 * the moment the observer's callback runs, on the observer's delivery
 * thread. Both sides read CLOCK_MONOTONIC, which is system-wide.
 *
 * The writer is a child process with a handle of its own; the parent
 * observes one key and tells the writer, round by round over a pipe, to
 * create the item, update it in place (announced by KeychainKit's own
 * signal) and remove it. Includes the coalescing window (KK_OBSERVE_COALESCE_MS).
 *
 * Usage: bench_outside_changes ROUNDS (each round: create, update, remove) */
#include "bench_common.h"

#include <keychainkit.h>
#include <pthread.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

enum { CREATE, UPDATE, REMOVE, STEPS };
static const char *const step_names[STEPS] = {
    "outside create -> callback", "outside update in place -> callback", "outside remove -> callback",
};

static char service[64];

/* What the callback saw last, under the mutex. */
static pthread_mutex_t mutex = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t heard = PTHREAD_COND_INITIALIZER;
static uint64_t calls, last_call_ns;

static void on_change(kk_event event, const char *svc, const char *account, kk_status status, void *userdata) {
    (void)svc; (void)account; (void)userdata;
    if (status != KK_OK || (event != KK_EVENT_CHANGED && event != KK_EVENT_DELETED)) return;
    uint64_t now = bench_now_ns();
    pthread_mutex_lock(&mutex);
    calls++;
    last_call_ns = now;
    pthread_cond_broadcast(&heard);
    pthread_mutex_unlock(&mutex);
}

/* The writer: for each step byte read, performs it and writes back the
 * time its call returned. */
static _Noreturn void writer(int commands, int acks) {
    kk_keychain *kc = NULL;
    BENCH_REQUIRE(kk_open_secret_service(&kc) == KK_OK, "kk_open_secret_service (writer)");
    unsigned char step;
    while (read(commands, &step, 1) == 1) {
        kk_status st = step == REMOVE ? kk_remove(kc, service, "observed")
                                      : kk_set(kc, service, "observed", step == CREATE ? "created" : "updated", 7);
        uint64_t acknowledged = bench_now_ns();
        BENCH_REQUIRE(st == KK_OK, "a write of the writer");
        BENCH_REQUIRE(write(acks, &acknowledged, sizeof acknowledged) == (ssize_t)sizeof acknowledged, "ack");
    }
    kk_close(kc);
    _exit(0);
}

int main(int argc, char **argv) {
    int rounds = argc > 1 ? atoi(argv[1]) : 100;
    BENCH_REQUIRE(rounds > 0, "ROUNDS argument");
    snprintf(service, sizeof service, "kkbench.observe.%d", (int)getpid());
    int commands[2], acks[2];
    BENCH_REQUIRE(pipe(commands) == 0 && pipe(acks) == 0, "pipe");
    fflush(stdout);
    pid_t child = fork();
    BENCH_REQUIRE(child >= 0, "fork");
    if (child == 0) {
        close(commands[1]);
        close(acks[0]);
        writer(commands[0], acks[1]);
    }
    close(commands[0]);
    close(acks[1]);

    kk_keychain *kc = NULL;
    uint64_t token = 0;
    BENCH_REQUIRE(kk_open_secret_service(&kc) == KK_OK, "kk_open_secret_service");
    BENCH_REQUIRE(kk_observe(kc, service, "observed", on_change, NULL, NULL, &token) == KK_OK, "kk_observe");

    bench_samples samples[STEPS];
    for (int s = 0; s < STEPS; s++) samples[s] = bench_samples_new("observe", step_names[s], (size_t)rounds);
    for (int round = 0; round < rounds; round++) {
        for (unsigned char step = 0; step < STEPS; step++) {
            pthread_mutex_lock(&mutex);
            uint64_t before = calls;
            pthread_mutex_unlock(&mutex);
            uint64_t acknowledged = 0;
            BENCH_REQUIRE(write(commands[1], &step, 1) == 1, "command");
            BENCH_REQUIRE(read(acks[0], &acknowledged, sizeof acknowledged) == (ssize_t)sizeof acknowledged, "ack");
            struct timespec until;
            clock_gettime(CLOCK_REALTIME, &until);
            until.tv_sec += 5;
            pthread_mutex_lock(&mutex);
            while (calls == before && pthread_cond_timedwait(&heard, &mutex, &until) == 0) {}
            BENCH_REQUIRE(calls == before + 1, "exactly one callback per outside change, within 5 s");
            uint64_t called = last_call_ns;
            pthread_mutex_unlock(&mutex);
            bench_add(&samples[step], called > acknowledged ? called - acknowledged : 0);
        }
    }
    usleep(300 * 1000);  // a late second callback for one change would show here
    pthread_mutex_lock(&mutex);
    BENCH_REQUIRE(calls == (uint64_t)rounds * STEPS, "one callback per outside change, none later");
    pthread_mutex_unlock(&mutex);
    for (int s = 0; s < STEPS; s++) bench_report(&samples[s]);
    close(commands[1]);
    int status = 0;
    BENCH_REQUIRE(waitpid(child, &status, 0) == child && WIFEXITED(status) && WEXITSTATUS(status) == 0, "writer");
    kk_close(kc);
    return 0;
}
