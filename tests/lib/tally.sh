# Shared by the shell test runners (sourced, POSIX sh): counting results,
# the closing line `N passed, N failed`, and finding the library.
#
#   . "$root/tests/lib/tally.sh"
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
