/* Loading libkeychainkit.so: dlopen plus the first call, in a process that
 * does not link it. Usage: bench_loading LIBRARY_PATH */
#include "bench_common.h"

#include <dlfcn.h>
#include <keychainkit.h>

int main(int argc, char **argv) {
    BENCH_REQUIRE(argc == 2, "usage: bench_loading LIBRARY_PATH");
    uint64_t start = bench_now_ns();
    void *library = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    BENCH_REQUIRE(library != NULL, "dlopen");
    kk_status (*open_memory)(kk_keychain **) = (kk_status (*)(kk_keychain **))dlsym(library, "kk_open_memory");
    void (*close_handle)(kk_keychain *) = (void (*)(kk_keychain *))dlsym(library, "kk_close");
    BENCH_REQUIRE(open_memory != NULL && close_handle != NULL, "dlsym");
    kk_keychain *kc;
    BENCH_REQUIRE(open_memory(&kc) == KK_OK, "first call");
    uint64_t elapsed = bench_now_ns() - start;
    close_handle(kc);
    bench_samples s = bench_samples_new("loading", "dlopen + first call", 1);
    bench_add(&s, elapsed);
    bench_report(&s);
    return 0;
}
