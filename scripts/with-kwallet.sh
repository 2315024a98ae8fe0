#!/bin/sh
# SPDX-License-Identifier: MIT
# Runs a command inside a private D-Bus session whose Secret Service is
# KWallet (kwalletd5, headless) serving a fresh, unlocked wallet, with HOME
# in a temporary directory; then removes it. The counterpart of
# scripts/with-secret-service.sh for the second server we support.
#
#   scripts/with-kwallet.sh COMMAND [ARG...]
#
# The bus has no activatable services (scripts/session-bus-no-activation.conf), so
# nothing but kwalletd5 can answer for org.freedesktop.secrets. The wallet is
# created without a dialog (kwallet/open_wallet.py); kwalletd5 is then
# restarted, since its Secret Service layer only serves wallets that existed
# when it started, and the collection unlocked (kwallet/unlock_collection.py).
# The command sees KEYCHAINKIT_TEST_KEYRING=private and
# KEYCHAINKIT_TEST_SERVER=kwallet. The exit status is the command's.
set -eu

if [ "$#" -eq 0 ]; then
    echo "usage: $0 COMMAND [ARG...]" >&2
    exit 2
fi
for tool in dbus-run-session kwalletd5 gdbus /usr/bin/python3; do
    command -v "$tool" >/dev/null 2>&1 || {
        echo "$0: '$tool' not found; install libkf5wallet-bin, libqca-qt5-2-plugins and python3-dbus (make deps)" >&2
        exit 2
    }
done
here=$(cd "$(dirname "$0")" && pwd)

private_home_label=kwallet
. "$here/lib-private-home.sh"
export KEYCHAINKIT_TEST_SERVER=kwallet
export QT_QPA_PLATFORM=offscreen
# How a test starts kwalletd5 again as a login does: the wallet closed
# (kt_ss_restart_locked).
export KEYCHAINKIT_TEST_SERVER_START="exec kwalletd5"

status=0
dbus-run-session --config-file="$here/session-bus-no-activation.conf" -- sh -c '
    here=$1; log=$2; shift 2
    kwalletd5 >"$log" 2>&1 &
    gdbus wait --session --timeout 10 org.kde.kwalletd5 &&
        /usr/bin/python3 "$here/kwallet/open_wallet.py" || { cat "$log" >&2; exit 2; }
    { kill $! && wait $!; } 2>/dev/null || true
    kwalletd5 >>"$log" 2>&1 &
    kwalletd=$!
    gdbus wait --session --timeout 10 org.freedesktop.secrets &&
        /usr/bin/python3 "$here/kwallet/unlock_collection.py" || { cat "$log" >&2; kill $kwalletd; exit 2; }
    status=0
    "$@" || status=$?
    # Stopped before the temporary HOME is removed, which it writes to;
    # and the kwalletd5 a test may have started in its place.
    "$here/end-secrets-owner.sh" $kwalletd
    { kill $kwalletd && wait $kwalletd; } 2>/dev/null
    exit $status' sh "$here" "$root/kwalletd.log" "$@" || status=$?
exit "$status"
