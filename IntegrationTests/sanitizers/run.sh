#!/bin/sh
# SPDX-License-Identifier: MIT
# Builds the C test runner (IntegrationTests/c/*.c) and the C examples with
# AddressSanitizer + UndefinedBehaviorSanitizer into build/sanitizers/
# and runs them on the memory backend, the kernel keyring and, inside
# scripts/with-secret-service.sh (a private D-Bus and gnome-keyring), on the
# Secret Service. The last line is exactly "N passed, N failed": the sum of
# the runner's closing lines, one test per example run, and one test per
# backend that no sanitizer report appeared. Exit status non-zero on any
# failure. Works from any directory.
#
#   IntegrationTests/sanitizers/run.sh [LIBDIR]       (default build/lib of this repository)
#
# Only our C code is instrumented; libkeychainkit.so (Swift, its runtime
# linked in statically) and GLib are not. ASan still sees every heap block
# of the process (malloc/free are intercepted), so it reports overflows of
# library-returned buffers, double frees and leaks of library allocations.
#
# Leaks: the runner ends each test's child with _exit(), which skips LSan's
# exit-time check, so leak_check_at_exit.c (linked into this build only)
# runs it there. Measured with detect_leaks=1 on both backends: neither the
# Swift runtime nor GLib/GIO produces a leak report (their caches stay
# reachable from globals), so no LSan suppressions are used. If a
# third-party report ever appears, add IntegrationTests/sanitizers/lsan.supp naming
# third-party frames only (never a kk_ or KeychainKit frame); it is used
# automatically when present.
set -u

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cdir="$root/IntegrationTests/c"
harness="$root/scripts/with-secret-service.sh"
# The hostile fake's command line, for the tests that put it in the place
# of another server (as IntegrationTests/c/run.sh sets it).
KEYCHAINKIT_TEST_FAKE_COMMAND="'$("$root/scripts/python-venv.sh")' '$root/IntegrationTests/hostile/fake_secret_service.py'"
export KEYCHAINKIT_TEST_FAKE_COMMAND
out="$root/build/sanitizers"
mkdir -p "$out" || exit 2

. "$root/IntegrationTests/lib/tally.sh"
require_libdir "${1:-$root/build/lib}"

# ---- Debian packages (a fresh CI machine) ------------------------------------
# gcc (clang links with its crt files and libgcc), binutils (ld.bfd), GIO headers for the runner's Secret Service
# helpers, and what scripts/with-secret-service.sh and the tests run.
need="gcc binutils libc6-dev pkg-config libglib2.0-dev libglib2.0-bin dbus gnome-keyring libsecret-tools"
missing=""
for p in $need; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
    if [ "$(id -u)" -eq 0 ]; then
        echo "installing:$missing" >&2
        apt-get update -qq >/dev/null
        # shellcheck disable=SC2086 # a list of packages
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing >/dev/null ||
            { fail "install$missing"; finish; }
    else
        fail "missing Debian packages:$missing (run as root to install them)"
        finish
    fi
fi

# ---- build ---------------------------------------------------------------
# The compiler is the Swift toolchain's clang (SANITIZER_CC overrides it): its
# ASan runtime (LLVM 18 and later) holds its allocator's locks across fork(),
# as glibc's malloc does. gcc 12's libasan does not: a child forked while
# another thread was inside malloc waited forever on the allocator's lock
# (fork_while_another_thread_is_in_kk_get on the kernel keyring hung in 15 of
# 150 runs, every backtrace in __sanitizer::SizeClassAllocator64; 0 of 150
# with this clang). gold cannot link clang's ASan runtime here; bfd can.
sanitizer_cc=${SANITIZER_CC:-$(dirname "$(command -v swift 2>/dev/null || echo /opt/swift/usr/bin/swift)")/clang}
if ! [ -x "$sanitizer_cc" ]; then
    fail "no sanitizer compiler: $sanitizer_cc is missing (put the Swift toolchain on PATH or set SANITIZER_CC)"
    finish
fi
san="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all -fuse-ld=bfd"
cc() {
    # The flags of IntegrationTests/c/run.sh, plus the sanitizers.
    # shellcheck disable=SC2086 # $san is a list of flags
    "$sanitizer_cc" -std=c11 -Wall -Wextra -Werror -pthread -O1 -g $san -I"$root/include" "$@" \
        -L"$libdir" -lkeychainkit -Wl,-rpath,"$libdir"
}

runner="$out/kk_tests"
# shellcheck disable=SC2046 # pkg-config output is a list of flags
if ! cc -I"$cdir" -o "$runner" "$cdir"/*.c "$here/leak_check_at_exit.c" \
    $(pkg-config --cflags --libs gio-2.0) 2>"$out/build-kk_tests.log"; then
    sed 's/^/    /' "$out/build-kk_tests.log"
    fail "build the test runner with sanitizers"
    runner=""
fi
examples=""
for src in "$root"/examples/c/*.c; do
    name=$(basename "$src" .c)
    if cc -o "$out/$name" "$src" 2>"$out/build-$name.log"; then
        examples="$examples $name"
    else
        sed 's/^/    /' "$out/build-$name.log"
        fail "build example $name with sanitizers"
    fi
done

# ---- sanitizer options ---------------------------------------------------------
# halt_on_error: the first report ends the process (so the test fails);
# detect_leaks: see above; detect_stack_use_after_return and the init-order
# checks cost little at this size; strict_string_checks makes the
# intercepted str* functions check whole strings. A caller's own
# ASAN_OPTIONS/UBSAN_OPTIONS come last and win.
asan="detect_leaks=1:halt_on_error=1:detect_stack_use_after_return=1"
asan="$asan:check_initialization_order=1:strict_init_order=1:strict_string_checks=1"
if [ -f "$here/lsan.supp" ]; then
    export LSAN_OPTIONS="suppressions=$here/lsan.supp:print_suppressions=1${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
fi
export ASAN_OPTIONS="$asan${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"

# A sanitizer report anywhere in a log (the runner's children write theirs to
# the runner's standard error).
reports() { grep -E 'ERROR: (AddressSanitizer|LeakSanitizer)|runtime error:|SUMMARY: (Address|Undefined|Leak)' "$1"; }

# ---- the test runner -----------------------------------------------------------
# Adds the runner's closing "N passed, N failed" (last line of its standard
# output) to the totals; no such line (the runner itself died) is a failure.
run_tests() {
    label=$1
    shift
    log="$out/tests-$label.log"
    "$@" >"$log" 2>"$log.stderr"
    sed 's/^/    /' "$log"
    add_closing_line "runner on $label" "$log"
    if reports "$log.stderr" >/dev/null; then
        fail "sanitizer reports on $label (see $log.stderr):"
        reports "$log.stderr" | head -n 20 | sed 's/^/    /'
    else
        pass "no sanitizer report on $label"
    fi
}

if [ -n "$runner" ]; then
    echo "== C tests with ASan+UBSan on memory"
    run_tests memory "$runner" memory
    echo "== C tests with ASan+UBSan on kernel (the runner's own session keyring)"
    run_tests kernel "$runner" kernel
    echo "== C tests with ASan+UBSan on secret-service (private keyring)"
    run_tests secret-service "$harness" "$runner" secret-service
fi

# ---- the examples ---------------------------------------------------------------
for name in $examples; do
    for backend in memory secret-service; do
        log="$out/example-$name-$backend.log"
        if [ "$backend" = memory ]; then
            "$out/$name" memory >"$log" 2>&1
        else
            "$harness" "$out/$name" secret-service >"$log" 2>&1
        fi
        status=$?
        if [ "$status" -eq 0 ] && ! reports "$log" >/dev/null; then
            pass "example $name on $backend"
        else
            fail "example $name on $backend (exit $status; see $log)"
            reports "$log" | head -n 20 | sed 's/^/    /'
        fi
    done
done

finish
