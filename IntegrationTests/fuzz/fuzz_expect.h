/* SPDX-License-Identifier: MIT */
/* fuzz_expect.h — how a harness reports a divergence from what the header
 * promises: a message naming the harness (FUZZ_NAME, defined before this
 * is included) and the line, then abort(), which libFuzzer records as a
 * crash with its input. Shared by the harnesses. */
#ifndef KK_FUZZ_EXPECT_H
#define KK_FUZZ_EXPECT_H

#include <stdio.h>
#include <stdlib.h>

#ifndef FUZZ_NAME
#error "define FUZZ_NAME (the harness's name) before including fuzz_expect.h"
#endif

#define FAILF(...)                                                                 \
    do {                                                                           \
        fprintf(stderr, FUZZ_NAME " divergence at %s:%d: ", __FILE__, __LINE__);   \
        fprintf(stderr, __VA_ARGS__);                                              \
        fprintf(stderr, "\n");                                                     \
        abort();                                                                   \
    } while (0)

#define EXPECT(cond, ...)                \
    do {                                 \
        if (!(cond)) FAILF(__VA_ARGS__); \
    } while (0)

#endif
