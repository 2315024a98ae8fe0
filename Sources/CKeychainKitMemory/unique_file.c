/* SPDX-License-Identifier: MIT */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdlib.h>

#include "keychainkit_memory.h"

int keychainkit_create_unique_file(char *name_template) {
    return mkostemp(name_template, O_CLOEXEC);
}
