/* Keeping the tool's secrets out of core dumps. See keychainkit_support.h. */
#include <sys/prctl.h>

#include "keychainkit_support.h"

int keychainkit_forbid_core_dumps(void) {
    return prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
}
