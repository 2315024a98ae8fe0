# SPDX-License-Identifier: MIT
# Shared by the shell test runners (sourced, POSIX sh): counting results,
# the closing line `N passed, N failed`, and finding the library.
#
#   . "$root/IntegrationTests/lib/tally.sh"
#   require_libdir "${1:-$root/build/lib}"     # sets $libdir or finishes
#   pass "name"; fail "name"; ...; finish

passed=0
failed=0
pass() { passed=$((passed + 1)); echo "PASS $*"; }
fail() { failed=$((failed + 1)); echo "FAIL $*"; }

# Prints the closing line and exits: 0 only when something passed and
# nothing failed.
finish() {
    echo "$passed passed, $failed failed"
    [ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
    exit $?
}

# Sets $libdir to the absolute path of the directory $1, which must hold
# libkeychainkit.so; otherwise records a failure and finishes.
require_libdir() {
    if ! libdir=$(cd "$1" 2>/dev/null && pwd) || [ ! -e "$libdir/libkeychainkit.so" ]; then
        fail "no libkeychainkit.so in $1"
        finish
    fi
}

# Adds the closing "N passed, N failed" of a runner's log (its last line) to
# the totals and prints it under `label`; a log without that line (the
# runner itself died) is one failure. Returns non-zero in that case.
add_closing_line() {
    label=$1 log=$2
    last=$(tail -n 1 "$log")
    if echo "$last" | grep -Eq '^[0-9]+ passed, [0-9]+ failed$'; then
        closing_passed=${last%% passed*}
        closing_failed=${last#*, }
        closing_failed=${closing_failed%% failed}
        passed=$((passed + closing_passed))
        failed=$((failed + closing_failed))
        echo "== $label: $last"
    else
        fail "$label: the runner did not finish (see $log)"
        return 1
    fi
}
