/* SPDX-License-Identifier: MIT */
/*
 * arc4random for the static C++ runtime (the Makefile's STATIC_CXX).
 *
 * GCC 12's libstdc++.a (std::random_device) calls arc4random, which glibc
 * has only from 2.36. Linked in statically, that one reference would make
 * the library and the programs need glibc 2.36, above the 2.35 the wheel
 * promises (manylinux_2_35) and Ubuntu 22.04 has. This definition answers
 * it from getrandom(2) (glibc 2.25) instead. Hidden: the link's own
 * reference binds to it, and no other code of the process sees it. Built
 * only with the Makefile's release flags (KEYCHAINKIT_STATIC_CXX): a
 * package that builds these sources with SwiftPM links its own C++ runtime
 * and gets glibc's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <sys/random.h>

#ifdef KEYCHAINKIT_STATIC_CXX

/* Not <stdlib.h>: glibc 2.36 declares arc4random there, visible. */
extern void abort(void) __attribute__((noreturn));

/** A random 32-bit value from the kernel's generator; aborts when it
 * cannot have one, as glibc's arc4random does. */
__attribute__((visibility("hidden"))) uint32_t arc4random(void)
{
    uint32_t value;
    unsigned char *next = (unsigned char *)&value;
    size_t left = sizeof value;
    while (left > 0) {
        ssize_t got = getrandom(next, left, 0);
        if (got < 0) {
            if (errno == EINTR) continue;
            abort();
        }
        next += got;
        left -= (size_t)got;
    }
    return value;
}

#endif
