#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Tests of the keychainkit command-line tool, against the private keyring of
# scripts/with-secret-service.sh (run this script inside it), the memory
# backend and the kernel keyring (the user's persistent keyring; every key
# added is removed): commands, exit codes, bad input, and interop with
# secret-tool, Python keyring and keyctl. Usage: IntegrationTests/cli/run.sh KEYCHAINKIT_BINARY PYTHON
# (PYTHON has the `keyring` package). Prints `N passed, N failed`.
set -uo pipefail
kk=$1 python=$2
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/tally.sh"
[ "${KEYCHAINKIT_TEST_KEYRING:-}" = private ] || { fail "run inside scripts/with-secret-service.sh"; finish; }
work=$(mktemp -d "${TMPDIR:-/tmp}/keychainkit-cli.XXXXXX")
trap 'rm -rf "$work"' EXIT
svc="kkcli.$$.$RANDOM"
# "Python keyring" below is keyring's own SecretService backend, the peer we
# interoperate with, even where keychainkit's keyring backend is installed.
export PYTHON_KEYRING_BACKEND=keyring.backends.SecretService.Keyring

ok() { pass "$1"; }
bad() { fail "$1"; [ -n "${2:-}" ] && printf '%s\n' "$2" | sed 's/^/    /'; }

# expect NAME STATUS STDOUT STDERR-PATTERN -- COMMAND...   (stdin from $input)
input=""
expect() {
    local name=$1 want_status=$2 want_out=$3 want_err=$4; shift 5
    local status out err
    printf '%s' "$input" | "$@" >"$work/out" 2>"$work/err"; status=$?
    out=$(cat "$work/out"; echo x); out=${out%x}
    err=$(cat "$work/err")
    if [ "$status" != "$want_status" ]; then bad "$name" "exit $status, wanted $want_status; stderr: $err"
    elif [ "$want_out" != "*" ] && [ "$out" != "$want_out" ]; then bad "$name" "stdout: $(printf %q "$out")"
    elif [ -n "$want_err" ] && ! grep -qE -- "$want_err" <<<"$err"; then bad "$name" "stderr: $err"
    else ok "$name"; fi
}

input=$'s3cret\n'
expect "set reads stdin" 0 "" "" -- "$kk" set --service "$svc" alice
input=""
expect "get prints the secret and a newline" 0 $'s3cret\n' "" -- "$kk" get --service "$svc" alice
expect "get -n prints the exact bytes" 0 "s3cret" "" -- "$kk" get -n --service "$svc" alice
expect "secret-tool reads what keychainkit set" 0 "s3cret" "" -- secret-tool lookup service "$svc" username alice
expect "Python keyring reads what keychainkit set" 0 $'s3cret\n' "" -- "$python" -m keyring get "$svc" alice
expect "ls lists accounts" 0 $'alice\n' "" -- "$kk" ls --service "$svc"

input="from secret-tool"
expect "secret-tool store" 0 "" "" -- secret-tool store --label=x service "$svc" username bob
input=""
expect "keychainkit reads what secret-tool stored" 0 $'from secret-tool\n' "" -- "$kk" get --service "$svc" bob

input=$'from keyring\n'
expect "Python keyring set" 0 "" "" -- "$python" -c 'import keyring,sys; keyring.set_password(sys.argv[1], "carol", "from keyring")' "$svc"
input=""
expect "keychainkit reads what Python keyring stored" 0 $'from keyring\n' "" -- "$kk" get --service "$svc" carol
input=$'overwritten\n'
expect "keychainkit overwrites a keyring item" 0 "" "" -- "$kk" set --service "$svc" carol
input=""
expect "Python keyring reads the overwrite" 0 $'overwritten\n' "" -- "$python" -m keyring get "$svc" carol
one_item() { [ "$(secret-tool search --all service "$svc" username carol 2>/dev/null | grep -c '^\[')" = 1 ]; }
if one_item; then ok "one item after overwriting"; else bad "one item after overwriting" "$(secret-tool search --all service "$svc" username carol 2>&1)"; fi

expect "rm" 0 "" "" -- "$kk" rm --service "$svc" alice
expect "get of an absent key: exit 1" 1 "" "no secret for 'alice'" -- "$kk" get --service "$svc" alice
expect "rm of an absent key succeeds" 0 "" "" -- "$kk" rm --service "$svc" alice

# The empty account is an ordinary key: username="" for secret-tool and keyring.
input=$'nobody\n'
expect "set of the empty account" 0 "" "" -- "$kk" set --service "$svc" -- ""
input=""
expect "secret-tool reads the empty account" 0 "nobody" "" -- secret-tool lookup service "$svc" username ""
expect "Python keyring reads the empty account" 0 $'nobody\n' "" -- "$python" -m keyring get "$svc" ""
expect "rm of the empty account" 0 "" "" -- "$kk" rm --service "$svc" ""
expect "get of the removed empty account: exit 1" 1 "" "no secret for ''" -- "$kk" get --service "$svc" ""

# Binary and unusual input.
printf 'a\0b\377' | "$kk" set --service "$svc" binary 2>"$work/err"
if [ "$("$kk" get -n --service "$svc" binary | od -An -tx1 | tr -d ' \n')" = "610062ff" ]; then ok "binary stdin round-trips"; else bad "binary stdin round-trips" "$(cat "$work/err")"; fi
input=""
expect "empty stdin is refused" 2 "" "no secret on standard input" -- "$kk" set --service "$svc" empty
expect "unknown option" 2 "" "unknown option --bogus" -- "$kk" get --bogus x
expect "unknown command" 2 "" "unknown command 'frobnicate'" -- "$kk" frobnicate
expect "missing account" 2 "" "get needs an ACCOUNT" -- "$kk" get
expect "missing option value" 2 "" "--service needs a value" -- "$kk" get --service
expect "unknown backend" 2 "" "unknown backend" -- "$kk" --backend nope get x
expect "empty service" 2 "" "invalid argument" -- "$kk" get --service "" x
expect "--help" 0 "*" "" -- "$kk" --help
expect "--version" 0 "*" "" -- "$kk" --version
input=$'x\n'
expect "memory backend from KEYCHAINKIT_BACKEND" 0 "" "" -- env KEYCHAINKIT_BACKEND=memory "$kk" set m
input=""
expect "memory backend keeps nothing across processes" 1 "" "no secret" -- env KEYCHAINKIT_BACKEND=memory "$kk" get m

# The kernel keyring: the user's persistent keyring, shared by processes.
input=$'from kernel\n'
expect "kernel backend from KEYCHAINKIT_BACKEND" 0 "" "" -- env KEYCHAINKIT_BACKEND=kernel "$kk" set --service "$svc" k:acct
input=""
expect "kernel backend: another process reads it" 0 $'from kernel\n' "" -- "$kk" --backend kernel get --service "$svc" k:acct
description="keychainkit:${#svc}:$svc:k:acct"
# In a session keyring of its own, into which get_persistent links the
# persistent keyring: possessed, so searchable (its user permissions are view and read).
# shellcheck disable=SC2016 # expanded by the inner shell
if value=$(keyctl session - sh -c 'keyctl pipe "$(keyctl search "$(keyctl get_persistent @s)" user "$1")"' sh "$description" 2>"$work/err") &&
    [ "$value" = "from kernel" ]; then
    ok "kernel backend: keyctl finds and reads $description"
else
    bad "kernel backend: keyctl finds and reads $description" "$value $(grep -v '^Joined session keyring' "$work/err")"
fi
expect "kernel backend: ls" 0 $'k:acct\n' "" -- "$kk" --backend kernel ls --service "$svc"
expect "kernel backend: the Secret Service does not see it" 1 "" "no secret" -- "$kk" get --service "$svc" k:acct
head -c 32768 /dev/zero | tr '\0' x >"$work/big"
"$kk" --backend kernel set --service "$svc" k:acct <"$work/big" 2>"$work/err"; status=$?
if [ "$status" = 2 ] && grep -q "1 to 32767 bytes" "$work/err"; then ok "kernel backend: a value over 32767 bytes: exit 2, the limit named"
else bad "kernel backend: a value over 32767 bytes: exit 2, the limit named" "exit $status: $(cat "$work/err")"; fi
expect "kernel backend: the value is untouched" 0 $'from kernel\n' "" -- "$kk" --backend kernel get --service "$svc" k:acct
expect "kernel backend: rm" 0 "" "" -- "$kk" --backend kernel rm --service "$svc" k:acct
expect "kernel backend: absent after rm" 1 "" "no secret" -- "$kk" --backend kernel get --service "$svc" k:acct
expect "kernel backend under a seccomp filter forbidding keyctl: exit 4, says why" 4 "" "kernel keyring is forbidden here.*seccomp" -- \
    "$python" "$here/without_keyctl.py" "$kk" --backend kernel get --service "$svc" k:acct

# The file store: an encrypted keyring file, libsecret's format.
kf="$work/files/keys.keyring"
mkdir -p "$work/cred" && printf '%s' 'file master' >"$work/cred/keychainkit.master"
with_fd() { "$kk" --backend file --file "$kf" --master-fd 3 "$@" 3<"$work/cred/keychainkit.master"; }
input=$'in a file\n'
expect "file backend: set with --master-fd" 0 "" "" -- with_fd set --service "$svc" f:acct
input=""
expect "file backend: get with --master-fd" 0 $'in a file\n' "" -- with_fd get --service "$svc" f:acct
expect "file backend: KEYCHAINKIT_BACKEND, KEYCHAINKIT_FILE and the systemd credential" 0 $'in a file\n' "" -- \
    env KEYCHAINKIT_BACKEND=file KEYCHAINKIT_FILE="$kf" CREDENTIALS_DIRECTORY="$work/cred" "$kk" get --service "$svc" f:acct
expect "file backend: libsecret's file backend reads it" 0 "in a file" "" -- env -u DBUS_SESSION_BUS_ADDRESS \
    SECRET_BACKEND=file SECRET_FILE_TEST_PATH="$kf" SECRET_FILE_TEST_PASSWORD='file master' secret-tool lookup service "$svc" username f:acct
expect "file backend: info says persistent" 0 $'backend: file\nstore: keyring file '"$kf"$'\npersistence: persistent\n' "" -- with_fd info
expect "file backend: no master secret: exit 10, the sources named" 10 "" "no master secret.*--master-fd.*CREDENTIALS_DIRECTORY" -- \
    env -u CREDENTIALS_DIRECTORY "$kk" --backend file --file "$kf" get --service "$svc" f:acct
input="a wrong master"
expect "file backend: a wrong master secret: exit 9" 9 "" "does not open" -- \
    "$kk" --backend file --file "$kf" --master-fd 0 get --service "$svc" f:acct
input=""
printf 'garbage' >"$work/files/bad.keyring" && chmod 600 "$work/files/bad.keyring"
expect "file backend: a damaged file: exit 11" 11 "" "not a keyring file" -- \
    env CREDENTIALS_DIRECTORY="$work/cred" "$kk" --backend file --file "$work/files/bad.keyring" ls
# The headless recipe: the master encrypted with systemd-creds (a test host
# key instead of /var/lib/systemd/credential.secret), decrypted into
# $CREDENTIALS_DIRECTORY as systemd does for LoadCredentialEncrypted=.
head -c 4096 /dev/urandom >"$work/hostkey" && chmod 400 "$work/hostkey"
mkdir -p "$work/unit-credentials"
if SYSTEMD_CREDENTIAL_SECRET="$work/hostkey" systemd-creds encrypt --name=keychainkit.master --with-key=host \
       "$work/cred/keychainkit.master" "$work/master.cred" 2>/dev/null &&
   SYSTEMD_CREDENTIAL_SECRET="$work/hostkey" systemd-creds decrypt --name=keychainkit.master \
       "$work/master.cred" "$work/unit-credentials/keychainkit.master" 2>/dev/null; then
    expect "file backend: a master from systemd-creds (LoadCredentialEncrypted=)" 0 $'in a file\n' "" -- \
        env KEYCHAINKIT_BACKEND=file KEYCHAINKIT_FILE="$kf" CREDENTIALS_DIRECTORY="$work/unit-credentials" "$kk" get --service "$svc" f:acct
else
    bad "file backend: systemd-creds encrypts and decrypts the master" "systemd-creds failed or is missing"
fi
expect "file backend: --cache-master keeps the master in the kernel" 0 $'f:acct\n' "" -- with_fd --cache-master ls --service "$svc"
expect "file backend: a later run needs no source" 0 $'in a file\n' "" -- \
    env -u CREDENTIALS_DIRECTORY "$kk" --backend file --file "$kf" get --service "$svc" f:acct
expect "file backend: the cached master is a kernel key" 0 "" "" -- "$kk" --backend kernel rm --service keychainkit-file-master "$kf"
expect "file backend: rm" 0 "" "" -- with_fd rm --service "$svc" f:acct
expect "file backend: absent after rm" 1 "" "no secret" -- with_fd get --service "$svc" f:acct
expect "memory backend: info says until close" 0 "*" "" -- "$kk" --backend memory info
grep -q "persistence: until close" "$work/out" && ok "memory backend: persistence until close" || bad "memory backend: persistence until close" "$(cat "$work/out")"

# run: secrets in the command's environment, never in arguments or output.
input=$'run-secret\n'
expect "run: set the secret" 0 "" "" -- "$kk" set --service "$svc" run:acct
input=""
expect "run: the command sees the secret in NAME, and its exit status is passed through" 7 "ok" "" -- \
    "$kk" run --service "$svc" --env RUN_TOKEN=run:acct -- sh -c 'test "$RUN_TOKEN" = run-secret && printf ok && exit 7'
expect "run: a variable already set is replaced" 0 "ok" "" -- \
    env RUN_TOKEN=old "$kk" run --service "$svc" --env RUN_TOKEN=run:acct -- sh -c 'test "$RUN_TOKEN" = run-secret && printf ok'
expect "run: the command's arguments hold no secret" 0 "*" "" -- \
    "$kk" run --service "$svc" --env RUN_TOKEN=run:acct -- sh -c 'tr "\0" " " </proc/$$/cmdline'
grep -q run-secret "$work/out" && bad "run: the command's arguments hold no secret" "$(cat "$work/out")" || ok "run: no secret in /proc/PID/cmdline"
expect "run: an absent account runs nothing, exit 1" 1 "" "no secret for 'nobody'" -- \
    "$kk" run --service "$svc" --env RUN_TOKEN=nobody -- sh -c 'echo ran'
expect "run: a bad NAME is bad usage" 2 "" "NAME=ACCOUNT" -- "$kk" run --service "$svc" --env 9X=run:acct -- true
expect "run: no --env is bad usage" 2 "" "at least one --env" -- "$kk" run --service "$svc" -- true
expect "run: a command not found: exit 127" 127 "" "cannot run" -- "$kk" run --service "$svc" --env T=run:acct -- /nonexistent/cmd
expect "run: arguments that are not UTF-8 reach the command as they are" 0 " ff 80" "" -- \
    "$kk" run --service "$svc" --env T=run:acct -- sh -c 'printf %s "$1" | od -An -tx1 | tr -d "\n"' sh $'\xff\x80'
expect "run: the COMMAND comes after --" 2 "" "after --" -- "$kk" run --service "$svc" --env T=run:acct true
# Secrets by reference: .env files for run, templates for inject.
odd="$svc.odd/name 100%"   # a service with '/', ' ' and '%': percent-encoded
input=$'odd-secret\n'; expect "references: set in an odd service" 0 "" "" -- "$kk" set --service "$odd" "a b"
input=""
enc_svc="${svc}.odd%2Fname%20100%25"
{
    printf '# a comment, then a blank line\n\n'
    printf 'PLAIN=as written=with "quotes"\n'
    printf 'export TOKEN=keychainkit://%s/run:acct\n' "$svc"
    printf 'ODD=keychainkit://%s/a%%20b\n' "$enc_svc"
} >"$work/app.env"
expect "run --env-file: references resolved, other values as written" 0 'run-secret|odd-secret|as written=with "quotes"' "" -- \
    "$kk" run --env-file "$work/app.env" -- sh -c 'printf "%s|%s|%s" "$TOKEN" "$ODD" "$PLAIN"'
printf 'TOKEN=overridden\n' >"$work/second.env"
expect "run: several --env-file and --env combine, later ones winning" 0 "run-secret" "" -- \
    "$kk" run --env-file "$work/second.env" --service "$svc" --env TOKEN=run:acct -- sh -c 'printf %s "$TOKEN"'
printf 'TOKEN=keychainkit://%s/run:acct\nMISSING=keychainkit://%s/nobody\n' "$svc" "$svc" >"$work/missing.env"
expect "run --env-file: an absent reference runs nothing, exit 1" 1 "" "no secret for 'nobody'" -- \
    "$kk" run --env-file "$work/missing.env" -- sh -c 'echo ran'
printf 'X=keychainkit://no-slash\n' >"$work/bad.env"
expect "run --env-file: a malformed reference is bad usage" 2 "" "not a reference" -- "$kk" run --env-file "$work/bad.env" -- true
printf '9X=1\n' >"$work/badname.env"
expect "run --env-file: a bad line names its line, not its value" 2 "" "badname.env:1: not NAME=value" -- \
    "$kk" run --env-file "$work/badname.env" -- true
printf 'user: admin\npassword: {{ keychainkit://%s/run:acct }}\nodd: {{keychainkit://%s/a%%20b}}\nother: {{ not.ours }}\n' \
    "$svc" "$enc_svc" >"$work/config.tmpl"
expect "inject: placeholders replaced, other text kept, to stdout" 0 \
    $'user: admin\npassword: run-secret\nodd: odd-secret\nother: {{ not.ours }}\n' "" -- "$kk" inject -i "$work/config.tmpl"
expect "inject -o: written whole" 0 "" "" -- "$kk" inject -i "$work/config.tmpl" -o "$work/config.out"
if [ "$(stat -c %a "$work/config.out")" = 600 ] && grep -qx 'password: run-secret' "$work/config.out" \
    && [ -z "$(find "$work" -name 'config.out.keychainkit-new.*')" ]; then ok "inject -o: mode 0600, nothing left beside it"
else bad "inject -o: mode 0600, nothing left beside it" "$(ls -l "$work")"; fi
printf 'a: {{ keychainkit://%s/run:acct }}\nb: {{ keychainkit://%s/nobody }}\n' "$svc" "$svc" >"$work/missing.tmpl"
expect "inject: an absent reference writes nothing, exit 1" 1 "" "no secret for 'nobody'" -- \
    "$kk" inject -i "$work/missing.tmpl" -o "$work/missing.out"
if [ -e "$work/missing.out" ]; then bad "inject: nothing written"; else ok "inject: nothing written"; fi
if grep -q run-secret "$work/err"; then bad "inject: no secret in the error" "$(cat "$work/err")"; else ok "inject: no secret in the error"; fi
input="x: {{ keychainkit://$svc/run:acct }}"$'\n'
expect "inject: the template from stdin" 0 $'x: run-secret\n' "" -- "$kk" inject
input=""
expect "references: rm the odd one" 0 "" "" -- "$kk" rm --service "$odd" "a b"
expect "run: rm" 0 "" "" -- "$kk" rm --service "$svc" run:acct

# get of several accounts: one batch, printed as JSON or NUL-separated.
many="$svc.many"
input=$'first\n'; expect "get many: set first" 0 "" "" -- "$kk" set --service "$many" one
input=$'quote " and \\ and \t tab\n'; expect "get many: set second" 0 "" "" -- "$kk" set --service "$many" two
input=""
expect "get --json: an object in the order asked, null when absent, exit 1 naming it" 1 \
    $'{"two":"quote \\" and \\\\ and \\t tab","nobody":null,"one":"first"}\n' "no secret for 'nobody'" -- \
    "$kk" get --json --service "$many" two nobody one two
expect "get --json: all found, exit 0" 0 $'{"one":"first"}\n' "" -- "$kk" get --json --service "$many" one
expect "get -0: ACCOUNT NUL SECRET NUL for each found" 1 'one|first|two|quote " and \ and 	 tab|' "no secret for 'nobody'" -- \
    bash -c 'set -o pipefail; "$1" get -0 --service "$2" one nobody two | tr "\0" "|"' bash "$kk" "$many"
expect "get -0 of an absent account: exit 1" 1 "*" "" -- "$kk" get -0 --service "$many" one nobody
expect "get --all --json: every account of the service" 0 \
    $'{"one":"first","two":"quote \\" and \\\\ and \\t tab"}\n' "" -- "$kk" get --all --json --service "$many"
printf 'a\377' | "$kk" set --service "$many" binary
expect "get --json of a value that is not UTF-8: exit 2, nothing printed" 2 "" "not UTF-8.*use -0" -- \
    "$kk" get --json --service "$many" one binary
printf 'a\0b' | "$kk" set --service "$many" binary
expect "get -0 of a value holding NUL: exit 2, nothing printed" 2 "" "NUL byte.*use --json" -- \
    "$kk" get -0 --service "$many" one binary
expect "get of several accounts needs a format" 2 "" "--json or -0" -- "$kk" get --service "$many" one two
expect "get --all takes no ACCOUNT" 2 "" "takes no ACCOUNT" -- "$kk" get --all --json --service "$many" one
expect "get --json needs ACCOUNTs or --all" 2 "" "needs ACCOUNTs or --all" -- "$kk" get --json --service "$many"
expect "get --json of an account that is not UTF-8 is bad usage" 2 "" "argument 6 is not valid UTF-8" -- \
    "$kk" get --json --service "$many" one $'\xff'
expect "get of an account that is not UTF-8 is bad usage (not a repaired name's item)" 2 "" "not valid UTF-8" -- \
    "$kk" get --service "$many" $'caf\xe9'
for account in one two binary; do "$kk" rm --service "$many" "$account"; done
# Paths from the environment that are not UTF-8: refused, not another file used.
expect "KEYCHAINKIT_FILE that is not UTF-8 is bad usage (no repaired path's file)" 2 "" "KEYCHAINKIT_FILE is not valid UTF-8" -- \
    env KEYCHAINKIT_FILE="$work/odd"$'\xff'.keyring "$kk" --backend file ls --service "$svc"
expect "XDG_DATA_HOME that is not UTF-8 names no default file" 2 "" "XDG_DATA_HOME is not valid UTF-8" -- \
    env -u KEYCHAINKIT_FILE XDG_DATA_HOME="$work/data"$'\xff' "$kk" --backend file ls --service "$svc"
[ -z "$(find "$work" -name "*$(printf '\357\277\275')*")" ] && ok "no file or directory of a repaired name" ||
    bad "no file or directory of a repaired name" "$(find "$work")"

"$kk" get --service "$svc" bob >&- 2>"$work/err"; status=$?
if [ "$status" = 8 ] && grep -q "cannot write standard output" "$work/err"; then ok "closed stdout: exit 8"; else bad "closed stdout: exit 8" "exit $status: $(cat "$work/err")"; fi

input=""
expect "no Secret Service: exit 4, fast, names the kernel keyring" 4 "" "no Secret Service.*KEYCHAINKIT_BACKEND=kernel" -- env DBUS_SESSION_BUS_ADDRESS=unix:path=/nonexistent timeout 5 "$kk" get x

# watch: a line per change of state, never the value; stops on SIGINT. As
# the service announces changes (create, our in-place update, remove), and
# with --interval also by re-reading.
watch_run() {  # NAME [WATCH-FLAG...]: the watch's output, after three writes
    name=$1; shift
    "$kk" watch "$@" --service "$svc" "$name" >"$work/watch" 2>&1 &
    watcher=$!
    sleep 0.5; printf 'one' | "$kk" set --service "$svc" "$name"
    sleep 0.5; printf 'two' | "$kk" set --service "$svc" "$name"
    sleep 0.5; "$kk" rm --service "$svc" "$name"
    sleep 0.5; kill -INT "$watcher"; wait "$watcher" 2>/dev/null
    cat "$work/watch"
}
for flags in "" "--interval 50"; do
    # shellcheck disable=SC2086 # $flags is zero or two words
    output=$(watch_run watched $flags)
    expected="watching 'watched' on '$svc'; interrupt to stop
watched: absent
watched: present (change 1)
watched: present (change 2)
watched: absent"
    if [ "$output" = "$expected" ] && ! printf '%s\n' "$output" | tail -n +2 | grep -qE 'one|two'; then
        ok "watch ${flags:-(announced changes)} prints each change, not the value"
    else
        bad "watch ${flags:-(announced changes)} prints each change, not the value" "$output"
    fi
done

# Locked: lock the default collection, expect exit 3 (never 1), unlock
# without a dialog (bindings/python/tests/keyring_control.py knows each server).
control() { PYTHONPATH="$here/../../bindings/python/tests" "$python" -c "import keyring_control; keyring_control.$1()"; }
marker="MARKER-$RANDOM-SECRET"
printf '%s' "$marker" | "$kk" set --service "$svc" locked
control lock
expect "locked keyring: exit 3, not 'not found'" 3 "" "locked" -- "$kk" get --service "$svc" locked
input=$'new\n'
expect "locked keyring: set exits 3" 3 "" "locked" -- "$kk" set --service "$svc" locked
start=$(date +%s%N)
expect "--prompt never: exit 3 at once" 3 "" "locked" -- "$kk" --prompt never get --service "$svc" locked
elapsed_ms=$((($(date +%s%N) - start) / 1000000))
if [ "$elapsed_ms" -lt 2000 ]; then ok "--prompt never does not wait"; else bad "--prompt never does not wait" "${elapsed_ms} ms"; fi
expect "locked keyring: get --json exits 3 and prints nothing" 3 "" "locked" -- \
    "$kk" --prompt never get --json --service "$svc" locked nobody
expect "locked keyring: run runs nothing, exit 3" 3 "" "locked" -- \
    "$kk" --prompt never run --service "$svc" --env T=locked -- sh -c 'echo ran'
printf 'T=keychainkit://%s/locked\n' "$svc" >"$work/locked.env"
expect "locked keyring: run --env-file runs nothing, exit 3" 3 "" "locked" -- \
    "$kk" --prompt never run --env-file "$work/locked.env" -- sh -c 'echo ran'
printf 't: {{ keychainkit://%s/locked }}\n' "$svc" >"$work/locked.tmpl"
expect "locked keyring: inject writes nothing, exit 3" 3 "" "locked" -- \
    "$kk" --prompt never inject -i "$work/locked.tmpl" -o "$work/locked.out"
if [ -e "$work/locked.out" ]; then bad "locked keyring: inject wrote nothing"; else ok "locked keyring: inject wrote nothing"; fi
control unlock
input=""
expect "unlocked again: readable" 0 "$marker"$'\n' "" -- "$kk" get --service "$svc" locked
# The field state: gnome-keyring restarted (as after an SSH login or a
# crash) loads the keyring locked and shows its items' attributes hashed.
if [ "${KEYCHAINKIT_TEST_SERVER:-gnome-keyring}" = gnome-keyring ]; then
    control restart_locked
    expect "loaded locked: get exits 3, not 'no secret'" 3 "" "locked" -- "$kk" get --service "$svc" locked
    expect "loaded locked: get of a key never stored: exit 1" 1 "" "no secret" -- "$kk" get --service "$svc" never-stored
    expect "loaded locked: ls exits 3, not an empty list" 3 "" "locked" -- "$kk" ls --service "$svc"
    expect "loaded locked: rm exits 3" 3 "" "locked" -- "$kk" rm --service "$svc" locked
    expect "loaded locked: run runs nothing, exit 3" 3 "" "locked" -- \
        "$kk" run --service "$svc" --env T=locked -- sh -c 'echo ran'
    # Unlocked from the terminal with its password, no dialog (as over SSH).
    input=$'not the password\n'
    expect "unlock with a wrong password: exit 9, still locked" 9 "" "refused" -- "$kk" unlock
    expect "unlock with a wrong password: get still exits 3" 3 "" "locked" -- "$kk" get --service "$svc" locked
    input=""
    expect "unlock --password-fd" 0 "" "" -- \
        sh -c '"$1" unlock --password-fd 3 3<<EOF
$KEYCHAINKIT_TEST_KEYRING_PASSWORD
EOF' sh "$kk"
    expect "loaded locked, then unlocked: rm removed nothing" 0 "$marker"$'\n' "" -- "$kk" get --service "$svc" locked
    expect "lock" 0 "" "" -- "$kk" lock login
    # On a terminal: the prompt, no echo of what is typed, unlocked.
    if out=$("$python" - "$kk" <<'PY' 2>&1
import os, pty, sys, time
pid, fd = pty.fork()
if pid == 0:
    os.execv(sys.argv[1], [sys.argv[1], "unlock"])
seen, sent = b"", False
while True:
    try:
        chunk = os.read(fd, 1024)
    except OSError:
        break
    if not chunk:
        break
    seen += chunk
    if not sent and b"Password to unlock" in seen:
        time.sleep(0.2)  # the prompt is written before echo is turned off
        os.write(fd, os.environ["KEYCHAINKIT_TEST_KEYRING_PASSWORD"].encode() + b"\n")
        sent = True
status = os.waitpid(pid, 0)[1]
password = os.environ["KEYCHAINKIT_TEST_KEYRING_PASSWORD"].encode()
print(seen.decode(errors="replace"))
sys.exit(0 if sent and os.waitstatus_to_exitcode(status) == 0 and password not in seen else 1)
PY
    ); then ok "unlock on a terminal: prompted, no echo"; else bad "unlock on a terminal: prompted, no echo" "$out"; fi
    expect "unlocked from a terminal: readable" 0 "$marker"$'\n' "" -- "$kk" get --service "$svc" locked
    expect "lock again" 0 "" "" -- "$kk" lock login
    expect "locked by lock: get exits 3" 3 "" "locked" -- "$kk" get --service "$svc" locked
    # Over SSH: no DBUS_SESSION_BUS_ADDRESS, the user's bus at $XDG_RUNTIME_DIR/bus.
    runtime="$work/runtime"; mkdir -m 700 "$runtime"
    socket=${DBUS_SESSION_BUS_ADDRESS#unix:path=}
    ln -s "${socket%%,*}" "$runtime/bus"
    input="$KEYCHAINKIT_TEST_KEYRING_PASSWORD"
    expect "unlock with DBUS_SESSION_BUS_ADDRESS unset, the bus at \$XDG_RUNTIME_DIR/bus" 0 "" "" -- \
        env -u DBUS_SESSION_BUS_ADDRESS XDG_RUNTIME_DIR="$runtime" "$kk" unlock default
    input=""
    expect "unlocked by unlock: readable" 0 "$marker"$'\n' "" -- "$kk" get --service "$svc" locked
    expect "unlock of an unlocked collection asks nothing" 0 "" "" -- "$kk" unlock
    expect "unlock of a missing collection: exit 1" 1 "" "no collection 'nosuch'" -- "$kk" unlock nosuch
    expect "unlock on another backend: usage" 2 "" "for the Secret Service" -- "$kk" --backend memory unlock
    expect "unlock takes one collection: usage" 2 "" "at most one COLLECTION" -- "$kk" unlock a b
fi
"$kk" get --service "$svc" nonexistent-key >/dev/null 2>"$work/err"
"$kk" frobnicate "$marker" >/dev/null 2>>"$work/err"
if grep -q "$marker" "$work/err"; then bad "no secret in error text" "$(cat "$work/err")"; else ok "no secret in error text"; fi

input=""
expect "--prompt with an unknown policy: usage" 2 "" "unknown --prompt" -- "$kk" --prompt sometimes ls
expect "--timeout needs milliseconds: usage" 2 "" "--timeout needs" -- "$kk" --timeout 0 ls
expect "--timeout too large: usage, no crash" 2 "" "--timeout needs a number of milliseconds from 1 to 86400000" -- "$kk" --timeout 10000000000000000 get x
expect "--prompt-timeout too large: usage, no crash" 2 "" "--prompt-timeout needs" -- "$kk" --prompt-timeout 99999999999999999999 get x
expect "--timeout with a sign: usage" 2 "" "--timeout needs" -- "$kk" --timeout +5 get x
expect "--timeout of one day is taken" 1 "" "no secret" -- "$kk" --timeout 86400000 --prompt-timeout 86400000 get --service "$svc" nobody-here
expect "--collection with an empty value: usage" 2 "" "--collection: the collection is empty" -- "$kk" --collection "" ls
expect "--collection with an alias that is no path element: usage" 2 "" "not letters, digits" -- "$kk" --collection my-alias ls
input=$'in session\n'
if [ "${KEYCHAINKIT_TEST_SERVER:-gnome-keyring}" = gnome-keyring ]; then
    expect "--collection session: stored" 0 "" "" -- "$kk" --collection session set --service "$svc" sess
    input=""
    control lock
    expect "--collection session: readable while the default collection is locked" 0 $'in session\n' "" -- "$kk" get --service "$svc" sess
    control unlock
    expect "--collection session: removed" 0 "" "" -- "$kk" rm --service "$svc" sess
else
    expect "--collection session: no such collection here" 7 "" "session" -- "$kk" --collection session set --service "$svc" sess
fi

# Names another program stored, written to a terminal: control characters
# escaped (no escape sequence reaches it); to a pipe, as stored.
input=$'x\n'
expect "set of an account with an escape sequence" 0 "" "" -- "$kk" set --service "$svc.esc" $'evil\e]0;pwned\a\\name'
input=""
expect "ls to a pipe writes the name as stored" 0 $'evil\e]0;pwned\a\\name\n' "" -- "$kk" ls --service "$svc.esc"
on_terminal=$(script -qec "$kk ls --service $svc.esc" /dev/null | tr -d '\r')
if [ "$on_terminal" = 'evil\x1b]0;pwned\x07\\name' ]; then ok "ls to a terminal escapes control characters"
else bad "ls to a terminal escapes control characters" "$(printf %q "$on_terminal")"; fi
"$kk" rm --service "$svc.esc" $'evil\e]0;pwned\a\\name'

finish
