#!/bin/sh
# SPDX-License-Identifier: MIT
# Runs a command inside a private D-Bus session whose Secret Service is
# KeePassXC (headless, QT_QPA_PLATFORM=offscreen) serving a fresh, unlocked
# database, with HOME in a temporary directory; then removes it. The
# counterpart of scripts/with-secret-service.sh for KeePassXC.
#
#   scripts/with-keepassxc.sh COMMAND [ARG...]
#
# The bus has no activatable services (session-bus-no-activation.conf), so
# nothing but KeePassXC can answer for org.freedesktop.secrets. Its settings
# (keepassxc/keepassxc.ini) turn on the Secret Service integration with every
# confirmation and notification off, UnlockBeforeSearch off (unless
# KEYCHAINKIT_TEST_KEEPASSXC_UNLOCK_BEFORE_SEARCH=true), automatic saving
# after every change on, as KeePassXC has it by default (off with
# KEYCHAINKIT_TEST_KEEPASSXC_AUTOSAVE=false: a change that meets a save
# crashes KeePassXC 2.7.4, which the client avoids; RELIABILITY.md), and
# every GUI extra off (tray icon, update checks, auto-lock). The database
# (keepassxc/make_database.py) exposes its root group; its password is in
# $KEYCHAINKIT_TEST_KEEPASSXC_PASSWORD_FILE, for tests that lock and unlock
# it. The command sees KEYCHAINKIT_TEST_KEYRING=private and
# KEYCHAINKIT_TEST_SERVER=keepassxc. KeePassXC may hang on SIGTERM after
# storing a large secret: it gets SIGKILL after a grace period. The exit
# status is the command's.
set -eu

if [ "$#" -eq 0 ]; then
    echo "usage: $0 COMMAND [ARG...]" >&2
    exit 2
fi
for tool in dbus-run-session keepassxc keepassxc-cli gdbus /usr/bin/python3; do
    command -v "$tool" >/dev/null 2>&1 || {
        echo "$0: '$tool' not found; install keepassxc (make deps)" >&2
        exit 2
    }
done
here=$(cd "$(dirname "$0")" && pwd)

private_home_label=keepassxc
. "$here/lib-private-home.sh"
export KEYCHAINKIT_TEST_SERVER=keepassxc
export QT_QPA_PLATFORM=offscreen
mkdir -p "$XDG_CONFIG_HOME/keepassxc" "$XDG_DATA_HOME/keepassxc"
# KEYCHAINKIT_TEST_KEEPASSXC_UNLOCK_BEFORE_SEARCH=true keeps KeePassXC's own
# default: a search of a locked database waits on its unlock dialog;
# KEYCHAINKIT_TEST_KEEPASSXC_AUTOSAVE=false turns its automatic save after
# every change off.
sed -e "s/^UnlockBeforeSearch=.*/UnlockBeforeSearch=${KEYCHAINKIT_TEST_KEEPASSXC_UNLOCK_BEFORE_SEARCH:-false}/" \
    -e "s/^AutoSaveAfterEveryChange=.*/AutoSaveAfterEveryChange=${KEYCHAINKIT_TEST_KEEPASSXC_AUTOSAVE:-true}/" \
    "$here/keepassxc/keepassxc.ini" >"$XDG_CONFIG_HOME/keepassxc/keepassxc.ini"
export KEYCHAINKIT_TEST_KEEPASSXC_PASSWORD_FILE="$root/password"
export KEYCHAINKIT_TEST_KEEPASSXC_DATABASE="$root/keychainkit-test.kdbx"
# How a test starts KeePassXC again as a login does: on the database, locked
# (kt_ss_restart_locked).
export KEYCHAINKIT_TEST_SERVER_START="exec keepassxc '$KEYCHAINKIT_TEST_KEEPASSXC_DATABASE'"
head -c 18 /dev/urandom | base64 >"$KEYCHAINKIT_TEST_KEEPASSXC_PASSWORD_FILE"
/usr/bin/python3 "$here/keepassxc/make_database.py" "$KEYCHAINKIT_TEST_KEEPASSXC_DATABASE" \
    "$KEYCHAINKIT_TEST_KEEPASSXC_PASSWORD_FILE"

status=0
dbus-run-session --config-file="$here/session-bus-no-activation.conf" -- sh -c '
    here=$1; log=$2; shift 2
    keepassxc --pw-stdin "$KEYCHAINKIT_TEST_KEEPASSXC_DATABASE" \
        <"$KEYCHAINKIT_TEST_KEEPASSXC_PASSWORD_FILE" >"$log" 2>&1 &
    keepassxc=$!
    unlocked=""
    for _ in $(seq 100); do
        if gdbus call --session --dest org.freedesktop.secrets \
            --object-path /org/freedesktop/secrets/aliases/default \
            --method org.freedesktop.DBus.Properties.Get \
            org.freedesktop.Secret.Collection Locked 2>/dev/null | grep -q false; then
            unlocked=yes; break
        fi
        sleep 0.1
    done
    if [ -z "$unlocked" ]; then
        echo "with-keepassxc.sh: KeePassXC did not serve an unlocked collection within 10 s" >&2
        cat "$log" >&2; kill -9 $keepassxc; exit 2
    fi
    status=0
    "$@" || status=$?
    # Stopped before the temporary HOME is removed, which it writes to;
    # and the KeePassXC a test may have started in its place.
    "$here/end-secrets-owner.sh" $keepassxc
    kill $keepassxc 2>/dev/null
    for _ in $(seq 30); do kill -0 $keepassxc 2>/dev/null || break; sleep 0.1; done
    kill -9 $keepassxc 2>/dev/null
    wait $keepassxc 2>/dev/null
    exit $status' sh "$here" "$root/keepassxc.log" "$@" || status=$?
exit "$status"
