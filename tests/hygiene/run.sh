#!/bin/sh
# Secret hygiene tests: kk_secret_free wipes (test_secret_free.c), no secret
# in error messages (test_error_messages.c) nor in Secret Service labels
# and attributes (test_item_metadata.c), the CLI never takes a secret in
# argv (cli.sh). The C tests form their own runner, built from the
# framework of bindings/c/tests (kk_test.c, kt_keychain.c,
# kt_secret_service.c, used as they are) plus the files here, run on the
# memory backend and inside scripts/with-secret-service.sh. The last line
# is exactly "N passed, N failed" (the sum of the runners' and cli.sh's
# closing lines); the exit status is non-zero on any failure.
#
#   tests/hygiene/run.sh [LIBDIR]     (default build/lib of this repository)
#
# The CLI is LIBDIR/../bin/keychainkit when it exists, else
# build/bin/keychainkit of this repository ($KEYCHAINKIT_CLI overrides).
# Not built with sanitizers: free_hook.c interposes free(), which ASan
# also does. Works from any directory.
set -u

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
cdir="$root/bindings/c/tests"
harness="$root/scripts/with-secret-service.sh"
out="$root/build/hygiene"
mkdir -p "$out" || exit 2

. "$root/tests/lib/tally.sh"
require_libdir "${1:-$root/build/lib}"
cli=${KEYCHAINKIT_CLI:-}
[ -n "$cli" ] || { [ -x "$libdir/../bin/keychainkit" ] && cli="$libdir/../bin/keychainkit"; }
[ -n "$cli" ] || cli="$root/build/bin/keychainkit"

# ---- Debian packages (a fresh CI machine) ------------------------------------
need="gcc libc6-dev pkg-config libglib2.0-dev libglib2.0-bin dbus gnome-keyring libsecret-tools"
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

# ---- build -------------------------------------------------------------------
# -fno-builtin-free: our free() is an ordinary function to the compiler.
runner="$out/kk_hygiene_tests"
# shellcheck disable=SC2046 # pkg-config output is a list of flags
if ! gcc -std=c11 -Wall -Wextra -Werror -pthread -O1 -g -fno-builtin-free \
    -I"$root/include" -I"$cdir" -o "$runner" \
    "$cdir/kk_test.c" "$cdir/kt_keychain.c" "$cdir/kt_secret_service.c" "$here"/*.c \
    $(pkg-config --cflags --libs gio-2.0) \
    -L"$libdir" -lkeychainkit -Wl,-rpath,"$libdir" 2>"$out/build.log"; then
    sed 's/^/    /' "$out/build.log"
    fail "build the hygiene runner"
    finish
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
    last=$(tail -n 1 "$log")
    if echo "$last" | grep -Eq '^[0-9]+ passed, [0-9]+ failed$'; then
        p=${last%% passed*}
        f=${last#*, }
        f=${f%% failed}
        passed=$((passed + p))
        failed=$((failed + f))
        echo "== $label: $last"
    else
        sed 's/^/    (stderr) /' "$log.stderr"
        fail "$label did not finish (see $log)"
    fi
}

echo "== C hygiene tests on memory"
run tests-memory "$runner" memory
echo "== C hygiene tests on secret-service (private keyring)"
run tests-secret-service "$harness" "$runner" secret-service
echo "== CLI (private keyring)"
run cli "$harness" "$here/cli.sh" "$cli"

finish
