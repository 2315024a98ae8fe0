#!/bin/sh
# SPDX-License-Identifier: MIT
# Runs a command inside a private D-Bus session with a fresh keychainkitd
# (build/bin/keychainkitd, or $KEYCHAINKITD) whose data directory is in a
# temporary HOME, its login collection unlocked with a password given on a
# descriptor, then removes it all.
#
#   scripts/with-keychainkitd.sh COMMAND [ARG...]
#
# The command sees KEYCHAINKIT_TEST_SERVER=keychainkitd,
# KEYCHAINKIT_TEST_KEYRING_PASSWORD (the login collection's password, so
# tests can unlock it again with UnlockWithMasterPassword, as on
# gnome-keyring) and KEYCHAINKITD_DATA (the keyring files' directory). The
# exit status is the command's.
set -eu

if [ "$#" -eq 0 ]; then
    echo "usage: $0 COMMAND [ARG...]" >&2
    exit 2
fi
KEYCHAINKITD=${KEYCHAINKITD:-$(cd "$(dirname "$0")/.." && pwd)/build/bin/keychainkitd}
for tool in dbus-run-session gdbus "$KEYCHAINKITD"; do
    command -v "$tool" >/dev/null 2>&1 || {
        echo "$0: '$tool' not found; make deps cli" >&2
        exit 2
    }
done

private_home_label=kkd
. "$(dirname "$0")/lib-private-home.sh"
export KEYCHAINKIT_TEST_SERVER=keychainkitd
export KEYCHAINKIT_TEST_KEYRING_PASSWORD=keychainkit-test
export KEYCHAINKITD KEYCHAINKITD_DATA="$XDG_DATA_HOME/keyrings/v1"

# D-Bus activation starts it again after a test killed it, with no
# password: its collections locked, as after a login that unlocked nothing.
mkdir -p "$XDG_DATA_HOME/dbus-1/services"
printf '[D-BUS Service]\nName=org.freedesktop.secrets\nExec=%s\n' "$KEYCHAINKITD" \
    >"$XDG_DATA_HOME/dbus-1/services/org.freedesktop.secrets.service"

status=0
dbus-run-session -- sh -c '
    printf %s "$KEYCHAINKIT_TEST_KEYRING_PASSWORD" | "$KEYCHAINKITD" --master-fd 0 &
    gdbus wait --session --timeout 10 org.freedesktop.secrets &&
    exec "$@"' sh "$@" || status=$?
exit "$status"
