#!/bin/sh
# SPDX-License-Identifier: MIT
# Runs a command with a private X display (Xvfb) of its own, for tests of
# the services' prompt dialogs, then stops it.
#
#   scripts/with-display.sh COMMAND [ARG...]
#
# The command sees DISPLAY and KEYCHAINKIT_TEST_DISPLAY set to that display;
# scripts/with-secret-service.sh and scripts/with-keepassxc.sh keep it (they
# clear every other display), so the private gnome-keyring's prompter
# (gcr-prompter) and KeePassXC show their dialogs there, where xdotool can
# answer them. The exit status is the command's.
set -eu

if [ "$#" -eq 0 ]; then
    echo "usage: $0 COMMAND [ARG...]" >&2
    exit 2
fi
for tool in Xvfb xdotool; do
    command -v "$tool" >/dev/null 2>&1 || {
        echo "$0: '$tool' not found; install xvfb and xdotool (make deps)" >&2
        exit 2
    }
done

displayfd=$(mktemp "${TMPDIR:-/tmp}/keychainkit-display.XXXXXX")
Xvfb -displayfd 3 -screen 0 1024x768x24 -nolisten tcp 3>"$displayfd" 2>/dev/null &
xvfb=$!
trap 'kill $xvfb 2>/dev/null; rm -f "$displayfd"' EXIT INT TERM
for _ in $(seq 100); do
    [ -s "$displayfd" ] && break
    sleep 0.05
done
number=$(cat "$displayfd")
if [ -z "$number" ]; then
    echo "$0: Xvfb did not start" >&2
    exit 2
fi
export DISPLAY=":$number" KEYCHAINKIT_TEST_DISPLAY=":$number"
status=0
"$@" || status=$?
exit "$status"
