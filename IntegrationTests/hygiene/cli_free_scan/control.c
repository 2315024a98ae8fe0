/* SPDX-License-Identifier: MIT */
/*
 * control.c — cli_free_scan.sh's control: run under preload.c, gives
 * blocks holding $KK_SCAN_MARKER back to the allocator, so that the
 * search is shown to find them (and not a wiped one).
 *
 *   control free          malloc, the marker at offset 37, free
 *   control realloc-move  the same block grown by realloc to 1 MiB (moves)
 *   control wiped         the marker, then zeros, then free: no report
 *
 * Built with -O0 -fno-builtin, so no store or free is optimised away.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    const char *marker = getenv("KK_SCAN_MARKER");
    if (argc != 2 || marker == NULL || strlen(marker) > 100) {
        fprintf(stderr, "usage: KK_SCAN_MARKER=M %s free|realloc-move|wiped\n", argv[0]);
        return 2;
    }
    char *block = malloc(200);
    if (block == NULL) return 1;
    memset(block, 'x', 200);
    memcpy(block + 37, marker, strlen(marker));
    if (strcmp(argv[1], "free") == 0) {
        free(block);
    } else if (strcmp(argv[1], "realloc-move") == 0) {
        char *larger = realloc(block, 1 << 20);
        if (larger == NULL) return 1;
        if (larger == block) {
            fprintf(stderr, "realloc did not move the block\n");
            return 1;
        }
        memset(larger, 0, 1 << 20); /* the new block holds no marker */
        free(larger);
    } else if (strcmp(argv[1], "wiped") == 0) {
        memset(block, 0, 200);
        free(block);
    } else {
        fprintf(stderr, "unknown mode %s\n", argv[1]);
        return 2;
    }
    return 0;
}
