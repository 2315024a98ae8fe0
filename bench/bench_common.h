/* SPDX-License-Identifier: MIT */
/* Shared helpers of the C benchmarks: a monotonic clock, sample sets with a
 * median, and one JSON line per measurement on stdout:
 *   {"group": "...", "name": "...", "median_ns": N, "samples": N}
 * bench/report.py turns those lines into the table. */
#ifndef KEYCHAINKIT_BENCH_COMMON_H
#define KEYCHAINKIT_BENCH_COMMON_H

#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static inline uint64_t bench_now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Samples of one measured operation, in nanoseconds. */
typedef struct {
    const char *group;
    const char *name;
    uint64_t *values;
    size_t count, capacity;
} bench_samples;

static inline bench_samples bench_samples_new(const char *group, const char *name, size_t capacity) {
    bench_samples s = {group, name, calloc(capacity, sizeof(uint64_t)), 0, capacity};
    if (s.values == NULL) { perror("calloc"); exit(2); }
    return s;
}

static inline void bench_add(bench_samples *s, uint64_t ns) {
    if (s->count < s->capacity) s->values[s->count++] = ns;
}

static int bench_compare_u64(const void *a, const void *b) {
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* Prints the median and the 99th percentile as a JSON line and frees the
 * samples. */
static inline void bench_report(bench_samples *s) {
    qsort(s->values, s->count, sizeof(uint64_t), bench_compare_u64);
    uint64_t median = s->count ? s->values[s->count / 2] : 0;
    uint64_t p99 = s->count ? s->values[(s->count * 99) / 100 < s->count ? (s->count * 99) / 100 : s->count - 1] : 0;
    printf("{\"group\": \"%s\", \"name\": \"%s\", \"median_ns\": %llu, \"p99_ns\": %llu, \"samples\": %zu}\n",
           s->group, s->name, (unsigned long long)median, (unsigned long long)p99, s->count);
    fflush(stdout);
    free(s->values);
}

/* Prints a throughput measurement as a JSON line. */
static inline void bench_report_rate(const char *group, const char *name, double ops_per_second, uint64_t ops) {
    printf("{\"group\": \"%s\", \"name\": \"%s\", \"ops_per_s\": %.0f, \"ops\": %llu}\n",
           group, name, ops_per_second, (unsigned long long)ops);
    fflush(stdout);
}

/* Fails the benchmark run loudly: a benchmark whose operations fail
 * measures nothing. */
#define BENCH_REQUIRE(cond, what) do { \
    if (!(cond)) { fprintf(stderr, "bench: %s failed (%s:%d)\n", what, __FILE__, __LINE__); exit(3); } \
} while (0)

#endif
