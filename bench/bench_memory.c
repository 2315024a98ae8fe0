/* SPDX-License-Identifier: MIT */
/* The in-memory backend through the C ABI: get and set throughput on one
 * thread and on two, and the cost of a write with 0 versus N observers
 * registered on other keys (interleaved). Usage: bench_memory OPS OBSERVERS */
#include "bench_common.h"

#include <keychainkit.h>
#include <pthread.h>
#include <string.h>

static long ops;

typedef struct {
    kk_keychain *kc;
    int write;
    char account[32];
} worker;

static void *run_worker(void *argument) {
    worker *w = argument;
    for (long i = 0; i < ops; i++) {
        if (w->write) {
            BENCH_REQUIRE(kk_set(w->kc, "bench", w->account, "value-123456", 12) == KK_OK, "kk_set");
        } else {
            char *value;
            BENCH_REQUIRE(kk_get(w->kc, "bench", w->account, &value, NULL) == KK_OK, "kk_get");
            kk_secret_free(value);
        }
    }
    return NULL;
}

static void throughput(const char *name, int threads, int write) {
    kk_keychain *kc;
    BENCH_REQUIRE(kk_open_memory(&kc) == KK_OK, "kk_open_memory");
    worker workers[2];
    pthread_t ids[2];
    for (int t = 0; t < threads; t++) {
        workers[t].kc = kc;
        workers[t].write = write;
        snprintf(workers[t].account, sizeof workers[t].account, "account-%d", t);
        BENCH_REQUIRE(kk_set(kc, "bench", workers[t].account, "value-123456", 12) == KK_OK, "kk_set");
    }
    uint64_t start = bench_now_ns();
    for (int t = 0; t < threads; t++) pthread_create(&ids[t], NULL, run_worker, &workers[t]);
    for (int t = 0; t < threads; t++) pthread_join(ids[t], NULL);
    double seconds = (double)(bench_now_ns() - start) / 1e9;
    bench_report_rate("memory", name, (double)(ops * threads) / seconds, (uint64_t)(ops * threads));
    kk_close(kc);
}

static void ignore_change(kk_event e, const char *s, const char *a, kk_status st, void *u) {
    (void)e; (void)s; (void)a; (void)st; (void)u;
}

static void observer_cost(int observers) {
    kk_keychain *quiet, *crowded;
    BENCH_REQUIRE(kk_open_memory(&quiet) == KK_OK && kk_open_memory(&crowded) == KK_OK, "kk_open_memory");
    char account[32];
    uint64_t token;
    for (int i = 0; i < observers; i++) {
        snprintf(account, sizeof account, "other-%d", i);
        BENCH_REQUIRE(kk_observe(crowded, "bench", account, ignore_change, NULL, NULL, &token) == KK_OK, "kk_observe");
    }
    bench_samples none = bench_samples_new("observers", "kk_set, 0 observers", (size_t)ops);
    bench_samples many = bench_samples_new("observers", "kk_set, many observers on other keys", (size_t)ops);
    for (long i = 0; i < ops; i++) {
        uint64_t t0 = bench_now_ns();
        kk_set(quiet, "bench", "key", "v", 1);
        uint64_t t1 = bench_now_ns();
        kk_set(crowded, "bench", "key", "v", 1);
        uint64_t t2 = bench_now_ns();
        bench_add(&none, t1 - t0);
        bench_add(&many, t2 - t1);
    }
    bench_report(&none);
    bench_report(&many);
    kk_close(quiet);
    kk_close(crowded);
}

int main(int argc, char **argv) {
    BENCH_REQUIRE(argc == 3, "usage: bench_memory OPS OBSERVERS");
    ops = atol(argv[1]);
    int observers = atoi(argv[2]);
    BENCH_REQUIRE(ops > 0 && observers >= 0, "arguments");
    throughput("kk_get, 1 thread", 1, 0);
    throughput("kk_get, 2 threads", 2, 0);
    throughput("kk_set, 1 thread", 1, 1);
    throughput("kk_set, 2 threads", 2, 1);
    observer_cost(observers);
    return 0;
}
