#!/bin/sh
# SPDX-License-Identifier: MIT
# Builds and runs the C examples (examples/c) and the C ABI test suite of
# KeychainKit (the *.c here).
#
#   IntegrationTests/c/run.sh LIBDIR INCLUDEDIR OUTDIR
#
# LIBDIR holds libkeychainkit.so, INCLUDEDIR keychainkit.h; binaries go to
# OUTDIR. Runs the test runner on the memory backend, on the kernel
# keyring, on the file store, then on the Secret
# Service inside scripts/with-secret-service.sh (a private gnome-keyring),
# scripts/with-keychainkitd.sh (our own server, build/bin/keychainkitd),
# scripts/with-kwallet.sh (a private KWallet wallet),
# scripts/with-keepassxc.sh (a private KeePassXC database, with its
# default automatic save) and
# scripts/with-fake-secret-service.sh (the hostile fake, plain and as oo7,
# ksecretd and KeePassXC with its idle lock), the prompt-dialog
# tests on gnome-keyring inside scripts/with-display.sh (Xvfb), each
# example on both backends, and each example under valgrind (memcheck) on
# the memory backend. Counts every runner test and every example or
# valgrind run; the last line is "N passed, N failed"; the exit status is
# non-zero when anything failed. Works from any directory.
set -u

if [ "$#" -ne 3 ]; then
    echo "usage: $0 LIBDIR INCLUDEDIR OUTDIR" >&2
    exit 2
fi

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
harness="$root/scripts/with-secret-service.sh"
mkdir -p "$3" || exit 2
libdir=$(cd "$1" && pwd) || exit 2
includedir=$(cd "$2" && pwd) || exit 2
outdir=$(cd "$3" && pwd) || exit 2

. "$root/IntegrationTests/lib/tally.sh"

cc() {
    gcc -std=c11 -Wall -Wextra -Werror -pthread -O1 -g -I"$includedir" "$@" \
        -L"$libdir" -lkeychainkit -Wl,-rpath,"$libdir"
}

# ---- build ---------------------------------------------------------------
examples="store_read_remove observe error_handling server_login"
built_examples=""
for name in $examples; do
    if cc -o "$outdir/$name" "$root/examples/c/$name.c"; then
        built_examples="$built_examples $name"
    else
        fail "build example $name"
    fi
done

runner="$outdir/kk_tests"
# shellcheck disable=SC2046 # pkg-config output is a list of flags
if ! cc -I"$here" -o "$runner" "$here"/*.c $(pkg-config --cflags --libs gio-2.0); then
    fail "build test runner"
    runner=""
fi

# ---- test runner -----------------------------------------------------------
# Adds the runner's closing "N passed, N failed" (the last line of its
# standard output) to the totals; a run that ended without that line (a
# crash of the runner itself) counts as a failure. Standard error (the
# harness' D-Bus daemon, a crashed test's abort message) is kept apart and
# shown after.
run_tests() {
    label=$1
    shift
    log="$outdir/tests-$label.log"
    "$@" 2>"$log.stderr" | tee "$log"
    [ -s "$log.stderr" ] && sed 's/^/    (stderr) /' "$log.stderr"
    add_closing_line "tests on $label" "$log"
}

# The hostile fake's command line, for the tests that put it in the place
# of another server (kt_ss_replace_with_fake).
KEYCHAINKIT_TEST_FAKE_COMMAND="'$("$root/scripts/python-venv.sh")' '$root/IntegrationTests/hostile/fake_secret_service.py'"
export KEYCHAINKIT_TEST_FAKE_COMMAND

if [ -n "$runner" ]; then
    echo "== tests on memory"
    run_tests memory "$runner" memory
    echo "== tests on kernel (the runner's own session keyring; the user's persistent and user keyrings)"
    run_tests kernel "$runner" kernel
    echo "== tests on file (a keyring file per test, in a private directory; libsecret's file backend beside)"
    run_tests file "$runner" file
    echo "== tests on secret-service (private keyring)"
    run_tests secret-service "$harness" "$runner" secret-service
    echo "== tests on secret-service (keychainkitd, our own, on a private data directory)"
    run_tests keychainkitd "$root/scripts/with-keychainkitd.sh" "$runner" secret-service
    echo "== tests on secret-service (KWallet, private wallet)"
    run_tests kwallet "$root/scripts/with-kwallet.sh" "$runner" secret-service
    echo "== tests on secret-service (KeePassXC with its defaults: automatic save on; private database)"
    # Eight threads × 30 rounds, ten runs in a row, with the client pacing
    # its changes around KeePassXC's saves, took 150 to 430 s on 2-core
    # machines: a bound for hangs, not a timing.
    run_tests keepassxc env KK_TEST_TIME_LIMIT=900 "$root/scripts/with-keepassxc.sh" "$runner" secret-service
    # The hostile fake as each server of 2026 it plays (IntegrationTests/hostile).
    for personality in "" oo7 ksecretd keepassxc-idle; do
        echo "== tests on secret-service (the fake${personality:+ as $personality})"
        run_tests "fake${personality:+-$personality}" "$root/scripts/with-fake-secret-service.sh" \
            ${personality:+--mode personality=$personality} "$runner" secret-service
    done
    echo "== prompt dialogs on secret-service (private keyring on a private display)"
    run_tests dialogs-gnome-keyring env KEYCHAINKIT_TEST_DIALOGS=1 "$root/scripts/with-display.sh" "$harness" "$runner" secret-service
    echo "== prompt dialogs on secret-service (KeePassXC, offscreen, with its default UnlockBeforeSearch)"
    run_tests dialogs-keepassxc env KEYCHAINKIT_TEST_DIALOGS=1 KEYCHAINKIT_TEST_KEEPASSXC_UNLOCK_BEFORE_SEARCH=true \
        "$root/scripts/with-keepassxc.sh" "$runner" secret-service
fi

# ---- examples --------------------------------------------------------------
for name in $built_examples; do
    log="$outdir/example-$name-memory.log"
    if "$outdir/$name" memory >"$log" 2>&1; then
        pass "example $name memory"
    else
        fail "example $name memory (see $log)"; sed 's/^/    /' "$log"
    fi
    log="$outdir/example-$name-secret-service.log"
    if "$harness" "$outdir/$name" secret-service >"$log" 2>&1; then
        pass "example $name secret-service"
    else
        fail "example $name secret-service (see $log)"; sed 's/^/    /' "$log"
    fi
done

# ---- valgrind --------------------------------------------------------------
# Only definite leaks and invalid accesses fail: the Swift runtime and GLib
# keep "still reachable" and "possibly lost" blocks for the process' life.
supp=""
[ -f "$here/valgrind.supp" ] && supp="--suppressions=$here/valgrind.supp"
if command -v valgrind >/dev/null 2>&1; then
    for name in $built_examples; do
        log="$outdir/valgrind-$name.log"
        # shellcheck disable=SC2086 # $supp is empty or one word
        if valgrind --tool=memcheck --error-exitcode=99 --leak-check=full \
            --errors-for-leak-kinds=definite $supp "$outdir/$name" memory >"$log" 2>&1; then
            pass "valgrind $name memory"
        else
            fail "valgrind $name memory (see $log)"; sed 's/^/    /' "$log" | tail -n 60
        fi
    done
else
    for name in $built_examples; do fail "valgrind $name memory (valgrind not installed)"; done
fi

finish
