#!/bin/sh
# SPDX-License-Identifier: MIT
# Secret hygiene tests: kk_secret_free wipes (test_secret_free.c), no
# memory goes back to the allocator holding a secret in clear, on either
# backend (test_freed_blocks.c: every freed block is searched), no secret
# in error messages (test_error_messages.c) nor in Secret Service labels
# and attributes (test_item_metadata.c), reading absent keys costs bounded
# memory (test_bounded_memory.c), no secret crosses the bus in clear
# (bus_monitor.sh: dbus-monitor records the private bus, on gnome-keyring,
# KWallet and KeePassXC), the CLI never
# takes a secret in argv (cli.sh) and gives no heap block back to the
# allocator holding one (cli_free_scan.sh: an LD_PRELOAD object,
# cli_free_scan/preload.c, searches every block the CLI frees or
# reallocates, through set, get and rm of 1 MiB secrets; its sources live
# in a directory of their own, out of the runner's *.c). The C tests form
# their own runner, built from the framework of IntegrationTests/c
# (kk_test.c, kt_keychain.c, kt_secret_service.c, used as they are) plus
# the files here, run on the memory backend, the kernel keyring, the file
# store and inside
# scripts/with-secret-service.sh. The last line
# is exactly "N passed, N failed" (the sum of the runners' and the
# scripts' closing lines); the exit status is non-zero on any failure.
#
#   IntegrationTests/hygiene/run.sh [LIBDIR]     (default build/lib of this repository)
#
# The CLI is LIBDIR/../bin/keychainkit when it exists, else
# build/bin/keychainkit of this repository ($KEYCHAINKIT_CLI overrides).
# Not built with sanitizers: free_hook.c interposes free() and realloc(),
# which ASan also does. Works from any directory.
set -u

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cdir="$root/IntegrationTests/c"
harness="$root/scripts/with-secret-service.sh"
out="$root/build/hygiene"
mkdir -p "$out" || exit 2

. "$root/IntegrationTests/lib/tally.sh"
require_libdir "${1:-$root/build/lib}"
cli=${KEYCHAINKIT_CLI:-}
[ -n "$cli" ] || { [ -x "$libdir/../bin/keychainkit" ] && cli="$libdir/../bin/keychainkit"; }
[ -n "$cli" ] || cli="$root/build/bin/keychainkit"

# ---- Debian packages (a fresh CI machine) ------------------------------------
"$root/scripts/install-deps.sh" || { fail "installing the Debian packages the tests need"; finish; }

# ---- build -------------------------------------------------------------------
# -fno-builtin-free: our free() is an ordinary function to the compiler.
# libgcrypt: the test's own derivation of a keyring file's key
# (test_core_dumps.c). GIO: not for the library (its transport is sd-bus), but
# for the tests' own D-Bus access to the keyring, bypassing the library
# (kt_secret_service.c, test_item_metadata.c).
runner="$out/kk_hygiene_tests"
# shellcheck disable=SC2046 # pkg-config output is a list of flags
if ! gcc -std=c11 -Wall -Wextra -Werror -pthread -O1 -g -fno-builtin-free -fno-builtin-realloc \
    -I"$root/include" -I"$cdir" -o "$runner" \
    "$cdir/kk_test.c" "$cdir/kt_keychain.c" "$cdir/kt_secret_service.c" "$here"/*.c \
    $(pkg-config --cflags --libs gio-2.0 libgcrypt) \
    -L"$libdir" -lkeychainkit -Wl,-rpath,"$libdir" 2>"$out/build.log"; then
    sed 's/^/    /' "$out/build.log"
    fail "build the hygiene runner"
    finish
fi

# The CLI's free scan: a preloadable object and its control program, built
# apart (the runner defines free() and realloc() of its own).
scan_so="$out/cli_free_scan.so"
scan_control="$out/cli_free_scan_control"
scan_built=0
if gcc -std=c11 -Wall -Wextra -Werror -O1 -g -shared -fPIC -o "$scan_so" \
    "$here/cli_free_scan/preload.c" -ldl 2>"$out/build-free-scan.log" &&
    gcc -std=c11 -Wall -Wextra -Werror -O0 -fno-builtin -o "$scan_control" \
        "$here/cli_free_scan/control.c" 2>>"$out/build-free-scan.log"; then
    scan_built=1
fi

# ---- run -----------------------------------------------------------------------
# Adds a closing "N passed, N failed" (the last line of standard output) to
# the totals; a run without one (a crash of the runner itself) is a failure.
run() {
    label=$1
    shift
    log="$out/$label.log"
    "$@" >"$log" 2>"$log.stderr"
    sed 's/^/    /' "$log"
    add_closing_line "$label" "$log" || sed 's/^/    (stderr) /' "$log.stderr"
}

echo "== C hygiene tests on memory"
run tests-memory "$runner" memory
echo "== C hygiene tests on kernel (the runner's own session keyring)"
run tests-kernel "$runner" kernel
echo "== C hygiene tests on file (a keyring file per test, in a private directory)"
run tests-file "$runner" file
echo "== C hygiene tests on secret-service (private keyring)"
run tests-secret-service "$harness" "$runner" secret-service
echo "== CLI (private keyring)"
run cli "$harness" "$here/cli.sh" "$cli"
echo "== no secret on the bus (dbus-monitor, private keyring)"
run bus-monitor "$harness" "$here/bus_monitor.sh" "$cli" "$libdir"
run bus-monitor-kwallet "$root/scripts/with-kwallet.sh" "$here/bus_monitor.sh" "$cli" "$libdir"
run bus-monitor-keepassxc "$root/scripts/with-keepassxc.sh" "$here/bus_monitor.sh" "$cli" "$libdir"
echo "== no freed heap block holds the secret in the CLI (LD_PRELOAD scan, private keyring)"
if [ "$scan_built" -eq 1 ]; then
    run cli-free-scan "$harness" "$here/cli_free_scan.sh" "$cli" "$scan_so" "$scan_control"
else
    sed 's/^/    /' "$out/build-free-scan.log"
    fail "build the CLI free scan (preload object, control program)"
fi

finish
