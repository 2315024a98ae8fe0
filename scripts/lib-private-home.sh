# SPDX-License-Identifier: MIT
# Sourced by scripts/with-secret-service.sh and scripts/with-kwallet.sh, with
# $private_home_label set: makes a temporary directory $root, removed on
# exit, with a HOME and XDG directories of its own, and points the
# environment at them, so that no keyring or wallet of the user's is ever
# touched. Clears every variable that could lead a client to the user's own
# session bus or display.
root=$(mktemp -d "${TMPDIR:-/tmp}/keychainkit-$private_home_label.XXXXXX")
cleanup() { rm -rf "$root"; }
trap cleanup EXIT INT TERM

mkdir -p "$root/home" "$root/data" "$root/runtime" "$root/config"
chmod 700 "$root/runtime"

export HOME="$root/home"
export XDG_DATA_HOME="$root/data"
export XDG_CONFIG_HOME="$root/config"
export XDG_RUNTIME_DIR="$root/runtime"
export KEYCHAINKIT_TEST_KEYRING=private
unset DBUS_SESSION_BUS_ADDRESS GNOME_KEYRING_CONTROL DISPLAY WAYLAND_DISPLAY
# A private display of scripts/with-display.sh, which the tests own, is kept.
if [ -n "${KEYCHAINKIT_TEST_DISPLAY:-}" ]; then
    export DISPLAY="$KEYCHAINKIT_TEST_DISPLAY"
fi
