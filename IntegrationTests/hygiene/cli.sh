#!/bin/sh
# SPDX-License-Identifier: MIT
# The CLI never takes a secret from its arguments (a secret in argv is
# visible to every user through ps and /proc, and lands in shell history).
# Run inside scripts/with-secret-service.sh (private keyring):
#
#   IntegrationTests/hygiene/cli.sh KEYCHAINKIT_BINARY
#
# Prints one line per check and, last, exactly "N passed, N failed".
set -u
kk=$1
. "$(cd "$(dirname "$0")/../lib" && pwd)/tally.sh"
# A failure with its detail, indented.
bad() { fail "$1"; [ -n "${2:-}" ] && printf '%s\n' "$2" | sed 's/^/    /'; }

if [ "${KEYCHAINKIT_TEST_KEYRING:-}" != private ]; then
    bad "run inside scripts/with-secret-service.sh"; finish
fi
if [ ! -x "$kk" ]; then bad "no CLI binary at $kk"; finish; fi
work=$(mktemp -d "${TMPDIR:-/tmp}/kk-hygiene-cli.XXXXXX")
trap 'rm -rf "$work"' EXIT
svc="kk-hygiene-cli.$$"
argv_secret="kk-hygiene-argv-secret-$$"

# How many items of the keyring carry service=$svc and username=$1.
items() { secret-tool search --all service "$svc" username "$1" 2>/dev/null | grep -c '^\['; }
# How many items the whole keyring holds, whatever their attributes.
all_items() {
    gdbus call --session --dest org.freedesktop.secrets --object-path /org/freedesktop/secrets \
        --method org.freedesktop.Secret.Service.SearchItems '{}' | grep -o "/collection/[^']*" | wc -l
}
before=$(all_items)

# 1. A secret given as an extra argument is refused with the usage status.
printf 'from-stdin\n' | "$kk" set --service "$svc" refused "$argv_secret" >"$work/out" 2>"$work/err"
status=$?
if [ "$status" -eq 2 ]; then pass "set with an extra argument exits 2"
else bad "set with an extra argument exits 2" "exit $status; stderr: $(cat "$work/err")"; fi

# 2. ... stores nothing: not the argument, not standard input, under no key
# (the keyring holds as many items as before).
after=$(all_items)
if [ "$after" -eq "$before" ] && [ "$(items refused)" -eq 0 ]; then pass "the refused set stored nothing"
else bad "the refused set stored nothing" "items before $before, after $after"; fi

# 3. ... and does not echo the would-be secret (terminals, CI logs).
if grep -q -- "$argv_secret" "$work/out" "$work/err"; then
    bad "the refusal does not print the argument" "$(cat "$work/out" "$work/err")"
else pass "the refusal does not print the argument"; fi

# 4. A control, so that check 2 can fail: the same command without the
# extra argument stores one item, read back by secret-tool.
printf 'from-stdin\n' | "$kk" set --service "$svc" control >"$work/out" 2>"$work/err"
status=$?
value=$(secret-tool lookup service "$svc" username control 2>/dev/null)
if [ "$status" -eq 0 ] && [ "$(items control)" -eq 1 ] && [ "$(all_items)" -eq $((before + 1)) ] &&
    [ "$value" = from-stdin ]; then
    pass "control: set from standard input stores the item"
else bad "control: set from standard input stores the item" "exit $status, value '$value'"; fi
"$kk" rm --service "$svc" control >/dev/null 2>&1

# 5. --help says where the secret comes from.
"$kk" --help >"$work/help" 2>&1
status=$?
if [ "$status" -eq 0 ] && grep -qi 'stdin\|standard input' "$work/help"; then
    pass "--help documents that set reads standard input"
else bad "--help documents that set reads standard input" "exit $status: $(cat "$work/help")"; fi

# 6. No core file holds a secret: a get killed while it holds the value
# (its output blocked on a pipe nobody reads) leaves no core; with
# KEYCHAINKIT_ALLOW_CORE_DUMPS=1 it does (so the check can fail), and that
# core holds the value.
core_marker="kk-hygiene-core-marker-$$"
head -c 1048576 /dev/zero | tr '\0' x | sed "s/^/$core_marker/" | "$kk" set --service "$svc" core
core_run() {  # core_run DIRECTORY [ENV...]: whether a killed get left a core there
    mkdir -p "$1"
    (cd "$1" && ulimit -c unlimited && shift && mkfifo pipe &&
        { env "$@" "$kk" get --service "$svc" core >pipe & pid=$!; exec 3<pipe;
          sleep 1; kill -ABRT "$pid"; wait "$pid"; exec 3<&-; }) 2>/dev/null
    ls "$1"/core* >/dev/null 2>&1
}
if core_run "$work/no-core"; then bad "a killed get leaves no core file" "$(ls -la "$work/no-core")"
else pass "a killed get leaves no core file (not dumpable)"; fi
if core_run "$work/core" KEYCHAINKIT_ALLOW_CORE_DUMPS=1 && grep -aq "$core_marker" "$work"/core/core*; then
    pass "control: with KEYCHAINKIT_ALLOW_CORE_DUMPS=1 its core holds the value"
else bad "control: with KEYCHAINKIT_ALLOW_CORE_DUMPS=1 its core holds the value" "$(ls -la "$work/core")"; fi
rm -f "$work"/core/core*
"$kk" rm --service "$svc" core >/dev/null 2>&1

finish
