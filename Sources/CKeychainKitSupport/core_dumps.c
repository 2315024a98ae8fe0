/* SPDX-License-Identifier: MIT */
/* Keeping the tool's secrets out of core dumps. See keychainkit_support.h. */
#include <sys/prctl.h>
#include <sys/resource.h>

#include "keychainkit_support.h"

/* The core file limit before keychainkit_forbid_core_dumps() lowered it. */
static struct rlimit saved_core_limit;
static int core_limit_lowered;

int keychainkit_forbid_core_dumps(int undumpable) {
    if (undumpable)
        return prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
    if (getrlimit(RLIMIT_CORE, &saved_core_limit) != 0)
        return -1;
    struct rlimit none = {0, saved_core_limit.rlim_max};
    if (setrlimit(RLIMIT_CORE, &none) != 0)
        return -1;
    core_limit_lowered = 1;
    return 0;
}

void keychainkit_restore_core_dumps(void) {
    if (core_limit_lowered)
        (void)setrlimit(RLIMIT_CORE, &saved_core_limit);
}
