#!/bin/sh
# SPDX-License-Identifier: MIT
# The CLI gives no heap block back to the allocator holding the secret:
# not the buffers standard input is read into (64 KiB chunks, a result
# that grows by reallocation; from a terminal, a line read byte by byte),
# not the value `get` prints (with or without its newline), not anything of
# the library under it (sd-bus messages, libgcrypt), through an item's
# life: set, get, get -n, replace, get -n, replace from a terminal, rm; and
# git's credential helper: store, get, erase.
# Run inside scripts/with-secret-service.sh (private keyring):
#
#   IntegrationTests/hygiene/cli_free_scan.sh KEYCHAINKIT_BINARY PRELOAD_SO CONTROL_BINARY
#
# PRELOAD_SO is cli_free_scan/preload.c built as a shared object: under
# LD_PRELOAD it searches every block freed, moved or shrunk by realloc()
# (the Swift runtime, the library, libsystemd, libgcrypt all use glibc's
# allocator) for the first 16 bytes of $KK_SCAN_MARKER, writes a line per
# block found to $KK_SCAN_REPORT and counts to $KK_SCAN_STATS at exit. The
# secrets are a random marker repeated with counters, 1 MiB and more, so
# that stdin's buffer is reallocated several times and every read chunk
# holds whole copies of the marker; the typed one is 3000 bytes (a
# terminal line holds 4095), typed by cli_free_scan/type_on_terminal.py.
#
# Controls, so that an empty report means something: CONTROL_BINARY
# (cli_free_scan/control.c) frees a block holding the marker and moves one
# by realloc(), which must be reported, and frees a wiped one, which must
# not; the CLI itself, given the marker as an account name (no secret, so
# nobody wipes it) on the memory backend (no D-Bus: only Swift's arrays and
# strings hold it), must be reported; each CLI run must have searched many
# blocks, one at least as large as the secret (the arrays or messages that
# held it) and, for set, blocks holding the account name (a witness).
#
# Prints one line per check and, last, exactly "N passed, N failed".
set -u
kk=$1
preload=$2
control=$3
typist="$(cd "$(dirname "$0")" && pwd)/cli_free_scan/type_on_terminal.py"
. "$(cd "$(dirname "$0")/../lib" && pwd)/tally.sh"
# A failure with its detail, indented.
bad() { fail "$1"; [ -n "${2:-}" ] && printf '%s\n' "$2" | sed 's/^/    /'; }

if [ "${KEYCHAINKIT_TEST_KEYRING:-}" != private ]; then
    bad "run inside scripts/with-secret-service.sh"; finish
fi
if [ ! -x "$kk" ]; then bad "no CLI binary at $kk"; finish; fi
if [ ! -f "$preload" ] || [ ! -x "$control" ]; then bad "no preload object or control at $preload, $control"; finish; fi
case $preload in /*) ;; *) preload="$(pwd)/$preload" ;; esac
work=$(mktemp -d "${TMPDIR:-/tmp}/kk-hygiene-free-scan.XXXXXX")
trap 'rm -rf "$work"' EXIT
svc="kk-hygiene-free-scan.$$"
account="kk-free-scan-account-$$" # longer than 15 bytes: a heap string in Swift

# 16 random characters: the prefix the preload searches for.
marker="kk$(od -An -N7 -tx1 /dev/urandom | tr -d ' \n')"
[ "${#marker}" -eq 16 ] || { bad "make a 16-byte marker" "got '$marker'"; finish; }

# secret FILE TAG BYTES: the marker, TAG and a counter, repeated to BYTES
# bytes (no newline anywhere, so set stores it all).
secret() {
    awk -v m="$marker" -v t="$2" -v n="$3" \
        'BEGIN { for (i = 0; i * 26 < n + 26; i++) printf "%s%s%08d;", m, t, i }' | head -c "$3" >"$1"
}
secret "$work/first" A $((1048576 + 123))
secret "$work/second" B $((1048576 + 4567))
secret "$work/typed" T 3000
size_first=$(wc -c <"$work/first")
size_second=$(wc -c <"$work/second")
size_typed=$(wc -c <"$work/typed")

# scanned LABEL COMMAND [ARG...]: runs the command under the preload, its
# report in $work/LABEL.report and its counts in $work/LABEL.stats
# (standard input and output are the caller's).
scanned() {
    label=$1
    shift
    : >"$work/$label.report"
    : >"$work/$label.stats"
    env LD_PRELOAD="$preload" KK_SCAN_MARKER="$marker" KK_SCAN_REPORT="$work/$label.report" \
        KK_SCAN_STATS="$work/$label.stats" KK_SCAN_WITNESS="$account" "$@"
}

# stat_of LABEL NAME: a count of LABEL's stats line (0 when absent).
stat_of() {
    v=$(sed -n "s/.*\\b$2=\\([0-9]*\\).*/\\1/p" "$work/$1.stats" | tail -n 1)
    echo "${v:-0}"
}

# ---- controls: the search finds what it must ------------------------------------
for mode in free realloc-move; do
    scanned "control-$mode" "$control" "$mode" 2>"$work/err"
    status=$?
    report=$(cat "$work/control-$mode.report")
    if [ "$status" -eq 0 ] && [ "$(wc -l <"$work/control-$mode.report")" -eq 1 ] &&
        echo "$report" | grep -q "^$mode size=[0-9]* offset=37 "; then
        pass "control: a block holding the marker given back by $mode is reported"
    else
        bad "control: a block holding the marker given back by $mode is reported" \
            "exit $status; report: $report; stderr: $(cat "$work/err")"
    fi
done
scanned control-wiped "$control" wiped 2>"$work/err"
status=$?
if [ "$status" -eq 0 ] && [ ! -s "$work/control-wiped.report" ] && [ "$(stat_of control-wiped blocks)" -ge 1 ]; then
    pass "control: a wiped block is searched and not reported"
else
    bad "control: a wiped block is searched and not reported" \
        "exit $status; report: $(cat "$work/control-wiped.report"); stats: $(cat "$work/control-wiped.stats")"
fi

# The CLI's own frees reach the search: the marker as an account name (not
# a secret: kept in Swift strings and arrays, freed unwiped) on the memory
# backend, where only Swift code holds it.
scanned control-swift "$kk" --backend memory get --service "$svc" "$marker-not-a-secret" \
    >/dev/null 2>"$work/err"
status=$?
if [ "$status" -eq 1 ] && [ -s "$work/control-swift.report" ]; then
    pass "control: the CLI's freed Swift strings and arrays are searched"
    echo "    $(wc -l <"$work/control-swift.report") block(s) held the account name; the first: $(head -n 1 "$work/control-swift.report" | cut -c1-300)"
else
    bad "control: the CLI's freed Swift strings and arrays are searched" \
        "exit $status (want 1, not found); stats: $(cat "$work/control-swift.stats"); stderr: $(cat "$work/err")"
fi

# ---- the CLI --------------------------------------------------------------------
# check_clean LABEL WHAT STATUS MIN_LARGEST [witness]: the command exited 0,
# nothing was reported, it searched many blocks, one of them at least
# MIN_LARGEST bytes (the array that held the whole secret) and, with
# "witness", blocks holding the account name.
check_clean() {
    label=$1 what=$2 status=$3 min_largest=$4 want_witness=${5:-}
    blocks=$(stat_of "$label" blocks)
    largest=$(stat_of "$label" largest)
    witness=$(stat_of "$label" witness)
    echo "    $what: $(cat "$work/$label.stats")"
    if [ "$status" -ne 0 ]; then
        bad "$what: runs" "exit $status; stderr: $(cat "$work/err")"
    elif [ "$blocks" -lt 50 ] || [ "$largest" -lt "$min_largest" ] ||
        { [ -n "$want_witness" ] && [ "$witness" -lt 1 ]; }; then
        bad "$what: the freed blocks were searched" \
            "blocks $blocks (want 50 or more), largest $largest (want $min_largest or more), witness $witness"
    else
        pass "$what: the freed blocks were searched ($blocks, the largest $largest bytes)"
    fi
    if [ -s "$work/$label.report" ]; then
        bad "$what: no freed block holds the secret" \
            "$(wc -l <"$work/$label.report") block(s); the first ones:
$(head -n 5 "$work/$label.report" | cut -c1-1200)"
    else
        pass "$what: no freed block holds the secret"
    fi
}

# 1. set, reading 1 MiB + 123 bytes through a pipe.
cat "$work/first" | scanned set "$kk" set --service "$svc" "$account" >/dev/null 2>"$work/err"
check_clean set "set (insert, $size_first bytes from a pipe)" $? "$size_first" witness
stored=$(secret-tool lookup service "$svc" username "$account" 2>/dev/null | wc -c)
if [ "$stored" -eq "$size_first" ]; then pass "set stored all $size_first bytes (secret-tool)"
else bad "set stored all $size_first bytes (secret-tool)" "secret-tool read $stored bytes"; fi

# 2. get (the value and a newline, appended to the array holding it).
scanned get "$kk" get --service "$svc" "$account" >"$work/out" 2>"$work/err"
check_clean get "get (with its newline)" $? "$size_first"
{ cat "$work/first"; echo; } >"$work/want"
if cmp -s "$work/out" "$work/want"; then pass "get prints the secret and a newline"
else bad "get prints the secret and a newline" "$(wc -c <"$work/out") bytes"; fi

# 3. get -n (the exact bytes).
scanned get-n "$kk" get --service "$svc" -n "$account" >"$work/out" 2>"$work/err"
check_clean get-n "get -n" $? "$size_first"
if cmp -s "$work/out" "$work/first"; then pass "get -n prints the secret"
else bad "get -n prints the secret" "$(wc -c <"$work/out") bytes"; fi

# 4. set again: replaces it, reading 1 MiB + 4567 bytes from a file.
scanned replace "$kk" set --service "$svc" "$account" <"$work/second" >/dev/null 2>"$work/err"
check_clean replace "set (replace, $size_second bytes from a file)" $? "$size_second" witness
scanned get-replaced "$kk" get --service "$svc" -n "$account" >"$work/out" 2>"$work/err"
check_clean get-replaced "get -n of the replaced value" $? "$size_second"
if cmp -s "$work/out" "$work/second"; then pass "get -n prints the new secret"
else bad "get -n prints the new secret" "$(wc -c <"$work/out") bytes"; fi

# 4b. get of several accounts, read together: --json, then -0, and run
# (the secret reaches the environment, then the command replaces the CLI).
scanned get-json "$kk" get --service "$svc" --json "$account" >"$work/out" 2>"$work/err"
check_clean get-json "get --json" $? "$size_second"
{ printf '{"%s":"' "$account"; cat "$work/second"; printf '"}\n'; } >"$work/want"
if cmp -s "$work/out" "$work/want"; then pass "get --json prints the secret in an object"
else bad "get --json prints the secret in an object" "$(wc -c <"$work/out") bytes"; fi
scanned get-nul "$kk" get --service "$svc" -0 "$account" >"$work/out" 2>"$work/err"
check_clean get-nul "get -0" $? "$size_second"
{ printf '%s\0' "$account"; cat "$work/second"; printf '\0'; } >"$work/want"
if cmp -s "$work/out" "$work/want"; then pass "get -0 prints the account and the secret"
else bad "get -0 prints the account and the secret" "$(wc -c <"$work/out") bytes"; fi

# 5. set from a terminal (read byte by byte without echo into an array
# that grows): replaces it with 3000 bytes, under a canonical-mode line's
# 4095. type_on_terminal.py types the line once echo is off.
# The typist runs `scanned`'s env itself: it holds the secret too and is
# not preloaded; only the CLI is.
: >"$work/terminal.report"
: >"$work/terminal.stats"
python3 "$typist" "$work/typed" env LD_PRELOAD="$preload" KK_SCAN_MARKER="$marker" \
    KK_SCAN_REPORT="$work/terminal.report" KK_SCAN_STATS="$work/terminal.stats" KK_SCAN_WITNESS="$account" \
    "$kk" set --service "$svc" "$account" >"$work/transcript" 2>"$work/err"
status=$?
cat "$work/transcript" >>"$work/err"
check_clean terminal "set (replace, $size_typed bytes typed on a terminal)" "$status" "$size_typed" witness
if grep -q "$marker" "$work/transcript"; then bad "set from a terminal does not echo the secret"
else pass "set from a terminal does not echo the secret"; fi
if secret-tool lookup service "$svc" username "$account" 2>/dev/null | cmp -s - "$work/typed"; then
    pass "set from a terminal stored the typed line"
else bad "set from a terminal stored the typed line" "$(cat "$work/transcript")"; fi

# 6. rm.
scanned rm "$kk" rm --service "$svc" "$account" >/dev/null 2>"$work/err"
status=$?
echo "    rm: $(cat "$work/rm.stats")"
if [ "$status" -eq 0 ] && [ ! -s "$work/rm.report" ] && [ "$(stat_of rm blocks)" -ge 50 ]; then
    pass "rm: no freed block holds the secret"
else
    bad "rm: no freed block holds the secret" \
        "exit $status; stats: $(cat "$work/rm.stats"); report: $(head -n 5 "$work/rm.report" | cut -c1-1200)"
fi
"$kk" get --service "$svc" "$account" >/dev/null 2>&1
status=$?
if [ "$status" -eq 1 ]; then pass "the item is gone after rm"
else bad "the item is gone after rm" "get exits $status"; fi

# 7. git's credential helper (the same program as git-credential-keychainkit):
# store, get and erase a credential whose password is 1 MiB + 123 bytes, as
# git's `key=value` lines on standard input.
git_helper="$(dirname "$kk")/git-credential-keychainkit"
host="free-scan-$$.example"
{ printf 'protocol=https\nhost=%s\nusername=%s\npassword=' "$host" "$account"; cat "$work/first"; printf '\n\n'; } \
    >"$work/git-store"
scanned git-store "$git_helper" store <"$work/git-store" >/dev/null 2>"$work/err"
check_clean git-store "git-credential-keychainkit store" $? "$size_first" witness
printf 'protocol=https\nhost=%s\n\n' "$host" | scanned git-get "$git_helper" get >"$work/out" 2>"$work/err"
check_clean git-get "git-credential-keychainkit get" $? "$size_first"
{ printf 'username=%s\npassword=' "$account"; cat "$work/first"; printf '\n'; } >"$work/want"
if cmp -s "$work/out" "$work/want"; then pass "git-credential-keychainkit get prints the credential"
else bad "git-credential-keychainkit get prints the credential" "$(wc -c <"$work/out") bytes"; fi
# erase with the password: the stored one is read to compare it.
scanned git-erase "$git_helper" erase <"$work/git-store" >/dev/null 2>"$work/err"
check_clean git-erase "git-credential-keychainkit erase (comparing the password)" $? "$size_first"
printf 'protocol=https\nhost=%s\n\n' "$host" | "$git_helper" get >"$work/out" 2>&1
if [ ! -s "$work/out" ]; then pass "the credential is gone after erase"
else bad "the credential is gone after erase" "get printed $(wc -c <"$work/out") bytes"; fi

finish
