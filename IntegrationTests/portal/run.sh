#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The file store inside a sandbox, end to end, with no Flathub: a private
# session bus (dbus-run-session), gnome-keyring unlocked on it as the Secret
# portal's backend, xdg-desktop-portal started on it, and the tool run under
# bubblewrap with a fake /.flatpak-info — which is all xdg-desktop-portal
# and libsecret look at to call a process an app. Checks that:
# - `keychainkit --backend file` (the automatic master source) gets the
#   app's secret from the portal and keeps items in libsecret's file,
#   $XDG_DATA_HOME/keyrings/default.keyring;
# - libsecret in the same sandbox (secret-tool, which uses the portal and
#   that file there) reads our items and we read its;
# - another app gets another secret: its master does not open the file;
# - with no portal on the bus, or no bus, the tool fails at once (exit 10)
#   saying why.
#
# - with no --backend, the tool, the git and Docker helpers and Python's
#   Keychain() (kk_open_default) use that file (the default store);
# - a fake portal's answer is believed from it alone (another peer's forged
#   Response is ignored), and a pipe holding more than the 64 bytes is
#   refused.
#
#   IntegrationTests/portal/run.sh KEYCHAINKIT_TOOL PYTHON
#
# PYTHON has jeepney (scripts/python-venv.sh), for the fake portal.
# Prints `N passed, N failed`.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
. "$root/IntegrationTests/lib/tally.sh"
tool=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
python=$2

if [ -z "${KEYCHAINKIT_PORTAL_BUS:-}" ]; then
    for program in bwrap /usr/libexec/xdg-desktop-portal gnome-keyring-daemon dbus-run-session secret-tool; do
        command -v "$program" >/dev/null || { fail "$program is missing (scripts/install-deps.sh installs it)"; finish; }
    done
    exec dbus-run-session -- env KEYCHAINKIT_PORTAL_BUS=1 "$0" "$@" 2> >(grep -v -i -e 'Failed to set fd limit' -e 'activat' -e 'max threads' >&2)
fi

work=$(mktemp -d /tmp/keychainkit-portal.XXXXXX)
cleanup() { kill $(jobs -p) 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT
export HOME=$work/home XDG_CONFIG_HOME=$work/config XDG_DATA_HOME=$work/host-data XDG_RUNTIME_DIR=$work/run
mkdir -p "$HOME" "$XDG_CONFIG_HOME" "$XDG_DATA_HOME" "$XDG_RUNTIME_DIR" && chmod 700 "$XDG_RUNTIME_DIR"
printf '%s' portal-login | gnome-keyring-daemon --unlock --components=secrets >/dev/null
XDG_CURRENT_DESKTOP=GNOME /usr/libexec/xdg-desktop-portal >"$work/portal.log" 2>&1 &
if ! timeout 20 gdbus wait --session org.freedesktop.portal.Desktop; then
    fail "xdg-desktop-portal did not start: $(tail -3 "$work/portal.log")"; finish
fi
bus_socket=${DBUS_SESSION_BUS_ADDRESS#unix:path=}; bus_socket=${bus_socket%%,*}

# Runs a command as app $1 (a fake Flatpak app id), with $2 as its data
# directory and $3 as its session bus address, the tool's directory on PATH.
as_app() {
    local app=$1 data=$2 address=$3; shift 3
    mkdir -p "$data" "$work/info"
    printf '[Application]\nname=%s\n' "$app" >"$work/info/$app"
    bwrap --ro-bind /usr /usr --ro-bind /etc /etc --symlink usr/lib /lib --symlink usr/lib64 /lib64 \
        --symlink usr/bin /bin --symlink usr/sbin /sbin --proc /proc --dev /dev --tmpfs /tmp \
        --bind "$work" "$work" --ro-bind "$root" "$root" --bind "$bus_socket" "$bus_socket" \
        --ro-bind "$work/info/$app" /.flatpak-info --clearenv \
        --setenv PATH "$(dirname "$tool"):/usr/bin:/bin" --setenv HOME "$work/home" \
        --setenv XDG_DATA_HOME "$data" --setenv DBUS_SESSION_BUS_ADDRESS "$address" \
        "$@"
}

app=org.example.KkTest
data=$work/app/data
keyring=$data/keyrings/default.keyring
out=$work/out

check() {  # check NAME WANT_STATUS WANT_OUTPUT COMMAND...
    local name=$1 want_status=$2 want_out=$3; shift 3
    "$@" >"$out" 2>"$out.err"; local status=$?
    if [ "$status" = "$want_status" ] && { [ "$want_out" = "*" ] || [ "$(cat "$out")" = "$want_out" ]; }; then pass "$name"
    else fail "$name: exit $status (wanted $want_status), out '$(cat "$out")', err '$(cat "$out.err")'"; fi
}

check "in the sandbox, set takes the master secret from the portal" 0 "" \
    as_app $app "$data" "$DBUS_SESSION_BUS_ADDRESS" sh -c 'printf "from keychainkit" | keychainkit --backend file set --service portal-test ours'
[ -f "$keyring" ] && [ "$(stat -c %a "$keyring")" = 600 ] && pass "the items are in libsecret's file, mode 600" ||
    fail "no $keyring: $(ls -la "$data" 2>&1)"
check "info names libsecret's file and says persistent" 0 $'backend: file\nstore: keyring file '"$keyring"$'\npersistence: persistent' \
    as_app $app "$data" "$DBUS_SESSION_BUS_ADDRESS" keychainkit --backend file info
# secret-tool (libsecret 0.20.5) in the sandbox once waited for ever on the
# portal (one CI-like run in about ten, 2026-12-04: `store` blocked in
# secret_password_storev_binary_sync for 9 minutes, its main loop idle; whether
# libsecret missed the portal's answer or the portal never sent it was not
# found). Each of its runs here is bounded, and one that timed out is made
# once more.
libsecret_in_sandbox() {
    as_app $app "$data" "$DBUS_SESSION_BUS_ADDRESS" timeout 20 "$@"
    local status=$?
    [ "$status" = 124 ] || return "$status"
    echo "secret-tool timed out waiting on the portal: once more" >&2
    as_app $app "$data" "$DBUS_SESSION_BUS_ADDRESS" timeout 20 "$@"
}
check "libsecret in the same sandbox reads our item" 0 "from keychainkit" \
    libsecret_in_sandbox secret-tool lookup service portal-test username ours
check "libsecret in the same sandbox stores an item" 0 "" \
    libsecret_in_sandbox sh -c 'printf "from libsecret" | secret-tool store --label=L service portal-test username theirs'
check "we read libsecret's item, in a new process" 0 "from libsecret" \
    as_app $app "$data" "$DBUS_SESSION_BUS_ADDRESS" keychainkit --backend file get -n --service portal-test theirs
check "the portal keeps the app's secret in the user's keyring (gnome-keyring)" 0 "*" \
    gdbus call --session -d org.freedesktop.secrets -o /org/freedesktop/secrets \
    -m org.freedesktop.Secret.Service.SearchItems "{'app_id': '$app'}"
grep -q "collection/login/" "$out" && pass "one item of app_id=$app in the login keyring" ||
    fail "no app_id=$app item in gnome-keyring: $(cat "$out" "$out.err")"
check "another app's secret does not open this app's file: exit 9" 9 "" \
    as_app org.example.Other "$data" "$DBUS_SESSION_BUS_ADDRESS" keychainkit --backend file get --service portal-test ours

# The default store: with no --backend, the tool, both helpers and Python's
# Keychain() (kk_open_default) use the portal-keyed file libsecret uses in
# the sandbox. (On the bus a Flatpak filters with xdg-dbus-proxy only the
# portal is reachable; Debian 12's proxy, 0.1.4, cannot pass sd-bus's
# pipelined authentication at all — fixed in 0.1.6 — so the whole bus is
# used here.)
fdata=$work/default/data
in_app() { as_app $app "$fdata" "$DBUS_SESSION_BUS_ADDRESS" "$@"; }
check "default store: set with no --backend keeps the secret in the portal-keyed file" 0 "" \
    in_app sh -c 'printf "by default" | keychainkit set --service sbx a'
check "default store: info names the file" 0 $'backend: file\nstore: keyring file '"$fdata/keyrings/default.keyring"$'\npersistence: persistent' \
    in_app keychainkit info
check "default store: libsecret in the sandbox reads it" 0 "by default" \
    in_app secret-tool lookup service sbx username a
check "default store: the git helper stores and reads there" 0 $'username=u\npassword=p' \
    in_app sh -c 'printf "protocol=https\nhost=git.example\nusername=u\npassword=p\n" | git-credential-keychainkit store &&
                  printf "protocol=https\nhost=git.example\n" | git-credential-keychainkit get'
check "default store: the Docker helper stores and reads there" 0 '{"ServerURL":"r.example","Username":"u","Secret":"s"}' \
    in_app sh -c 'printf "{\"ServerURL\":\"r.example\",\"Username\":\"u\",\"Secret\":\"s\"}" | docker-credential-keychainkit store &&
                  printf r.example | docker-credential-keychainkit get'
check "default store: Python's Keychain() opens the file (kk_open_default) and reads it" 0 "file by default" \
    in_app env PYTHONPATH="$root/bindings/python" KEYCHAINKIT_LIBRARY="$root/build/lib/libkeychainkit.so.0" /usr/bin/python3 -c \
    'from keychainkit import Keychain; kc = Keychain(service="sbx"); print(kc.backend, kc["a"])'
check "default store: the Secret Service stays one --backend away" 1 "" \
    in_app keychainkit --backend secret-service get --service sbx a

# No portal: a bus without one (no service activation), and no bus at all.
cat >"$work/bare-bus.conf" <<CONF
<busconfig><type>session</type><listen>unix:path=$work/bare-bus</listen><auth>EXTERNAL</auth>
<policy context="default"><allow send_destination="*" eavesdrop="true"/><allow eavesdrop="true"/><allow own="*"/></policy></busconfig>
CONF
dbus-daemon --config-file="$work/bare-bus.conf" --fork --print-pid >"$work/bare-bus.pid" 2>/dev/null
bus_socket=$work/bare-bus
check "a bus with no portal: exit 10 at once, saying so" 10 "" \
    as_app $app "$data" "unix:path=$work/bare-bus" timeout 10 keychainkit --backend file get --service portal-test ours
grep -q "Secret portal" "$out.err" && pass "the message names the Secret portal" || fail "message: $(cat "$out.err")"
# A fake portal on that bus: its answer is believed from the portal alone,
# and the pipe must hold exactly the secret.
for mode in honest forged extra-byte; do
    coproc FAKE { DBUS_SESSION_BUS_ADDRESS="unix:path=$work/bare-bus" exec "$python" "$here/fake_portal.py" "$mode" 2>&1; }
    read -r -t 10 ready <&"${FAKE[0]}"
    [ "$ready" = ready ] || fail "fake portal ($mode) did not start: $ready"
    fake_data=$work/fake-$mode
    if [ "$mode" = extra-byte ]; then
        check "a 65th byte in the pipe (a second writer) is refused: exit 10" 10 "" \
            as_app $app "$fake_data" "unix:path=$work/bare-bus" timeout 10 keychainkit --backend file set --service s a </dev/null
        grep -q "more than the 64 bytes" "$out.err" && pass "the message says more than 64 bytes came" || fail "message: $(cat "$out.err")"
    else
        check "fake portal ($mode): the real answer is taken$([ "$mode" = forged ] && echo ", another peer's forged Response ignored")" 0 "" \
            as_app $app "$fake_data" "unix:path=$work/bare-bus" sh -c 'printf v | timeout 10 keychainkit --backend file set --service s a'
    fi
    kill "$FAKE_PID" 2>/dev/null; wait "$FAKE_PID" 2>/dev/null
done
check "no session bus: exit 10 at once" 10 "" \
    as_app $app "$data" "unix:path=$work/no-such-bus" timeout 10 keychainkit --backend file get --service portal-test ours
kill "$(cat "$work/bare-bus.pid")" 2>/dev/null
finish
