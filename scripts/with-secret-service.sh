#!/bin/sh
# SPDX-License-Identifier: MIT
# Runs a command inside a private D-Bus session with a fresh, unlocked
# gnome-keyring whose HOME is a temporary directory, then removes it.
#
#   scripts/with-secret-service.sh COMMAND [ARG...]
#
# Nothing touches the real $HOME or the user's keyring. The command sees
# KEYCHAINKIT_TEST_KEYRING=private and KEYCHAINKIT_TEST_KEYRING_PASSWORD (the
# password the private keyring was created with, so tests can unlock it again).
# The exit status is the command's.
set -eu

if [ "$#" -eq 0 ]; then
    echo "usage: $0 COMMAND [ARG...]" >&2
    exit 2
fi
for tool in dbus-run-session gnome-keyring-daemon gdbus; do
    command -v "$tool" >/dev/null 2>&1 || {
        echo "$0: '$tool' not found; install dbus, gnome-keyring and libglib2.0-bin (make deps)" >&2
        exit 2
    }
done

private_home_label=ss
. "$(dirname "$0")/lib-private-home.sh"
export KEYCHAINKIT_TEST_KEYRING_PASSWORD=keychainkit-test

status=0
dbus-run-session -- sh -c '
    printf %s "$KEYCHAINKIT_TEST_KEYRING_PASSWORD" |
        gnome-keyring-daemon --unlock --components=secrets >/dev/null &&
    gdbus wait --session --timeout 10 org.freedesktop.secrets &&
    exec "$@"' sh "$@" || status=$?
exit "$status"
