#!/bin/sh
# SPDX-License-Identifier: MIT
# Runs a command inside a private D-Bus session whose Secret Service is the
# hostile fake of IntegrationTests/hostile/fake_secret_service.py (in-memory, scriptable
# misbehaviour), with HOME in a temporary directory; then removes it. The
# counterpart of scripts/with-secret-service.sh for testing that a client
# does not trust what a misbehaving server says.
#
#   scripts/with-fake-secret-service.sh [--mode MODE[=ARG]]... COMMAND [ARG...]
#
# Each --mode is passed to the fake (e.g. --mode loose-match, --mode
# slow=SearchItems:500, --mode no-reply=GetSecret); the modes, and the
# control object /io/github/keychainkit/FakeControl that changes them at run
# time, are described in IntegrationTests/hostile/README.md. The bus has no activatable
# services (session-bus-no-activation.conf), so nothing but the fake can
# answer for org.freedesktop.secrets, even after it is gone. The fake runs
# on the project's Python virtual environment (scripts/python-venv.sh).
#
# The command sees KEYCHAINKIT_TEST_KEYRING=fake and
# KEYCHAINKIT_TEST_SERVER=fake, or fake-NAME with --mode personality=NAME
# (the fake then behaves as oo7-daemon, ksecretd or KeePassXC with its idle
# lock). KEYCHAINKIT_FAKE_VERBOSE=1 makes the fake log
# every call to stderr. The exit status is the command's; 2 when the
# arguments are wrong or the fake does not own its name within 10 s.
set -eu

usage="usage: $0 [--mode MODE[=ARG]]... COMMAND [ARG...]"
here=$(cd "$(dirname "$0")" && pwd)
fake="$here/../IntegrationTests/hostile/fake_secret_service.py"

# The --mode options, one per line, as the fake's arguments ("--mode\nNAME").
newline='
'
modes=""
server=fake
add_mode() {
    modes="$modes--mode$newline$1$newline"
    case $1 in personality=*) server="fake-${1#personality=}" ;; esac
}
while [ "$#" -gt 0 ]; do
    case $1 in
        --mode) [ "$#" -ge 2 ] || { echo "$usage" >&2; exit 2; }
                add_mode "$2"; shift 2 ;;
        --mode=*) add_mode "${1#--mode=}"; shift ;;
        --) shift; break ;;
        -*) echo "$0: unknown option '$1'" >&2; echo "$usage" >&2; exit 2 ;;
        *) break ;;
    esac
done
if [ "$#" -eq 0 ]; then
    echo "$usage" >&2
    exit 2
fi
for tool in dbus-run-session gdbus; do
    command -v "$tool" >/dev/null 2>&1 || {
        echo "$0: '$tool' not found; install dbus and libglib2.0-bin (make deps)" >&2
        exit 2
    }
done
python=$("$here/python-venv.sh")
verbose=""
[ "${KEYCHAINKIT_FAKE_VERBOSE:-}" = 1 ] && verbose=--verbose

# Bad modes are reported here, not as a 10 s wait for a name never owned.
old_ifs=$IFS; IFS=$newline; set -f
# shellcheck disable=SC2086 # split on newlines only, no globbing
"$python" "$fake" --check-modes $modes || exit 2
IFS=$old_ifs; set +f

private_home_label=fake
. "$here/lib-private-home.sh"
export KEYCHAINKIT_TEST_KEYRING=fake
export KEYCHAINKIT_TEST_SERVER="$server"
# What the fake's UnlockWithMasterPassword takes (as oo7).
export KEYCHAINKIT_TEST_KEYRING_PASSWORD=fake-keyring-password

status=0
dbus-run-session --config-file="$here/session-bus-no-activation.conf" -- sh -c '
    python=$1; fake=$2; modes=$3; verbose=$4; shift 4
    old_ifs=$IFS; IFS="
"; set -f
    "$python" "$fake" $verbose $modes &
    fake_pid=$!
    IFS=$old_ifs; set +f
    if ! gdbus wait --session --timeout 10 org.freedesktop.secrets; then
        echo "with-fake-secret-service.sh: the fake did not own org.freedesktop.secrets within 10 s" >&2
        kill $fake_pid 2>/dev/null; exit 2
    fi
    status=0
    "$@" || status=$?
    { kill $fake_pid && wait $fake_pid; } 2>/dev/null
    exit $status' sh "$python" "$fake" "$modes" "$verbose" "$@" || status=$?
exit "$status"
