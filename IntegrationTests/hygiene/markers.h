/* SPDX-License-Identifier: MIT */
/*
 * markers.h — secret values that are easy to find in memory and text.
 */
#ifndef HYGIENE_MARKERS_H
#define HYGIENE_MARKERS_H

#include <stdio.h>
#include <unistd.h>

/** Writes a marker unique to this process and `tag` into buf: a string
 *  that appears nowhere unless a secret was copied there. */
static inline const char *hy_marker(char *buf, size_t size, const char *tag)
{
    snprintf(buf, size, "kk-hygiene-marker-%s-%ld-Zq7", tag, (long)getpid());
    return buf;
}

#endif /* HYGIENE_MARKERS_H */
