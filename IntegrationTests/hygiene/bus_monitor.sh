#!/bin/sh
# SPDX-License-Identifier: MIT
# No secret crosses the bus in clear: KeychainKit's transfer session is
# encrypted (dh-ietf1024-sha256-aes128-cbc-pkcs7), so a bus monitor that
# records every message sees the names of the items but never their values.
# Run inside scripts/with-secret-service.sh (private bus and keyring):
#
#   IntegrationTests/hygiene/bus_monitor.sh KEYCHAINKIT_BINARY LIBDIR
#
# dbus-monitor --binary records the private session bus into a file while
#   - the CLI stores a marker (CreateItem), replaces it with another
#     (SetSecret) and reads it back (GetSecret);
#   - the Python binding (bus_clients.py binding: kk_set/kk_get/kk_remove of
#     LIBDIR/libkeychainkit.so through ctypes) does the same with its own;
#   - a control (bus_clients.py plain, python3-dbus) stores a third kind of
#     marker through a `plain` session, which carries it in clear.
# Then the capture must hold the names used, the method names and the
# encrypted algorithm (it really recorded our traffic), none of KeychainKit's
# markers (not even half of one), and the control's marker (so that the
# search can fail). Each marker is 40 random letters and digits.
#
# Prints one line per check and, last, exactly "N passed, N failed".
set -u
kk=$1
libdir=$2
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$root/IntegrationTests/lib/tally.sh"
ok() { pass "$1"; }
bad() { fail "$1"; [ -n "${2:-}" ] && printf '%s\n' "$2" | sed 's/^/    /'; }

if [ "${KEYCHAINKIT_TEST_KEYRING:-}" != private ] || [ -z "${DBUS_SESSION_BUS_ADDRESS:-}" ]; then
    bad "run inside scripts/with-secret-service.sh"; finish
fi
[ -x "$kk" ] || { bad "no CLI binary at $kk"; finish; }
[ -e "$libdir/libkeychainkit.so" ] || { bad "no libkeychainkit.so in $libdir"; finish; }
command -v dbus-monitor >/dev/null 2>&1 || { bad "dbus-monitor not found (Debian package dbus-bin)"; finish; }
# A Python with python3-dbus (the system's; a pyenv or venv python may lack it).
python=""
for candidate in /usr/bin/python3 python3; do
    if "$candidate" -c 'import dbus' >/dev/null 2>&1; then python=$candidate; break; fi
done
[ -n "$python" ] || { bad "no python3 with the dbus module (Debian package python3-dbus)"; finish; }

work=$(mktemp -d "${TMPDIR:-/tmp}/kk-hygiene-bus.XXXXXX")
capture="$work/capture.bin"
monitor=""
cleanup() {
    [ -n "$monitor" ] && kill "$monitor" 2>/dev/null
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 2' INT TERM

# 40 random letters and digits.
marker() { LC_ALL=C tr -dc 'A-Za-z0-9' </dev/urandom | head -c 40; }
# Whether the capture holds these exact bytes.
captured() { LC_ALL=C grep -F -a -q -- "$1" "$capture"; }
# Calls the bus daemon with a unique, never-owned name (NameHasOwner), then
# waits up to 10 s until the capture holds it: every message the daemon
# routed before it is then recorded too.
probe() {
    name="org.keychainkit.hygiene.probe$$.$1"
    gdbus call --session --dest org.freedesktop.DBus --object-path /org/freedesktop/DBus \
        --method org.freedesktop.DBus.NameHasOwner "$name" >/dev/null 2>&1
    tries=0
    while ! captured "$name"; do
        tries=$((tries + 1))
        [ "$tries" -ge 100 ] && return 1
        sleep 0.1
        # Not attached yet when it missed the first call: call again.
        gdbus call --session --dest org.freedesktop.DBus --object-path /org/freedesktop/DBus \
            --method org.freedesktop.DBus.NameHasOwner "$name" >/dev/null 2>&1
    done
}

cli_svc="kk-hygiene-bus-cli.$$"
cli_acct="cli-account-$$"
py_svc="kk-hygiene-bus-binding.$$"
py_acct="binding-account-$$"
ctl_svc="kk-hygiene-bus-control.$$"
ctl_acct="control-account-$$"
cli_first=$(marker) cli_second=$(marker) py_first=$(marker) py_second=$(marker) ctl_secret=$(marker)
for m in "$cli_first" "$cli_second" "$py_first" "$py_second" "$ctl_secret"; do
    [ "${#m}" -eq 40 ] || { bad "made a 40-character marker" "got '$m'"; finish; }
done

# ---- record ------------------------------------------------------------------
dbus-monitor --session --binary >"$capture" 2>"$work/monitor.err" &
monitor=$!
if probe start; then ok "dbus-monitor is attached to the private bus"
else bad "dbus-monitor is attached to the private bus" "$(cat "$work/monitor.err")"; finish; fi

# The CLI: insert, replace, read.
printf '%s\n' "$cli_first" | "$kk" set --service "$cli_svc" "$cli_acct" >"$work/out" 2>"$work/err"
status=$?
printf '%s\n' "$cli_second" | "$kk" set --service "$cli_svc" "$cli_acct" >>"$work/out" 2>>"$work/err"
status2=$?
got=$("$kk" get -n --service "$cli_svc" "$cli_acct" 2>>"$work/err")
status3=$?
if [ "$status" -eq 0 ] && [ "$status2" -eq 0 ] && [ "$status3" -eq 0 ] && [ "$got" = "$cli_second" ]; then
    ok "CLI: set, replace and get the markers"
else bad "CLI: set, replace and get the markers" "exits $status $status2 $status3; $(cat "$work/err")"; fi
# A batch read (GetSecrets) crosses the bus as encrypted as GetSecret.
got=$("$kk" get --json --service "$cli_svc" "$cli_acct" 2>>"$work/err")
if [ "$got" = "{\"$cli_acct\":\"$cli_second\"}" ]; then ok "CLI: get --json of the marker (GetSecrets)"
else bad "CLI: get --json of the marker (GetSecrets)" "$got; $(cat "$work/err")"; fi
"$kk" rm --service "$cli_svc" "$cli_acct" >/dev/null 2>&1

# The Python binding on LIBDIR's library: insert, read, replace, read, remove.
if printf '%s\n%s\n' "$py_first" "$py_second" |
    PYTHONPATH="$root/bindings/python" KEYCHAINKIT_LIBRARY="$libdir/libkeychainkit.so" \
        "$python" "$here/bus_clients.py" binding "$py_svc" "$py_acct" >"$work/py.out" 2>&1; then
    ok "Python binding: set, get, replace, get, remove the markers"
else bad "Python binding: set, get, replace, get, remove the markers" "$(cat "$work/py.out")"; fi

# The control: a plain session on the same bus, during the same recording.
if printf '%s\n' "$ctl_secret" |
    "$python" "$here/bus_clients.py" plain "$ctl_svc" "$ctl_acct" >"$work/ctl.out" 2>&1; then
    ok "control: python3-dbus stores a marker through a plain session"
else bad "control: python3-dbus stores a marker through a plain session" "$(cat "$work/ctl.out")"; fi

if probe end; then ok "the capture is complete (the closing probe was recorded)"
else bad "the capture is complete (the closing probe was recorded)"; fi
kill "$monitor" 2>/dev/null
wait "$monitor" 2>/dev/null
monitor=""
echo "    capture: $(wc -c <"$capture") bytes"

# ---- (a) the capture saw our traffic -------------------------------------------
missing=""
for name in "$cli_svc" "$cli_acct" "$py_svc" "$py_acct" "$ctl_svc" "$ctl_acct"; do
    captured "$name" || missing="$missing $name"
done
if [ -z "$missing" ]; then ok "the capture holds every service and account name used"
else bad "the capture holds every service and account name used" "missing:$missing"; fi
missing=""
for name in OpenSession CreateItem SetSecret GetSecret SearchItems Delete dh-ietf1024-sha256-aes128-cbc-pkcs7; do
    captured "$name" || missing="$missing $name"
done
if [ -z "$missing" ]; then ok "the capture holds OpenSession(dh-ietf1024-...), CreateItem, SetSecret, GetSecret"
else bad "the capture holds OpenSession(dh-ietf1024-...), CreateItem, SetSecret, GetSecret" "missing:$missing"; fi

# ---- (b) no KeychainKit marker, not even half of one ---------------------------
check_absent() {
    label=$1 m=$2
    first_half=$(printf '%s' "$m" | cut -c1-20)
    second_half=$(printf '%s' "$m" | cut -c21-40)
    if captured "$m"; then bad "no $label marker on the bus" "the whole marker is in the capture, in clear"
    elif captured "$first_half" || captured "$second_half"; then bad "no $label marker on the bus" "half of the marker is in the capture"
    else ok "no $label marker on the bus"; fi
}
check_absent "CLI set" "$cli_first"
check_absent "CLI replace" "$cli_second"
check_absent "Python binding set" "$py_first"
check_absent "Python binding replace" "$py_second"

# ---- control: the search finds a secret sent in clear --------------------------
if captured "$ctl_secret"; then ok "control: the plain session's marker is in the capture"
else bad "control: the plain session's marker is in the capture" "the check could not fail"; fi

finish
