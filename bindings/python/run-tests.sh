#!/bin/sh
# SPDX-License-Identifier: MIT
# Runs the Python binding's tests on both backends: the in-memory keychain and
# the Secret Service of a private, throw-away gnome-keyring.
#
#   bindings/python/run-tests.sh [PYTEST-ARG...]
#
# Creates (or reuses) the venv build/python-venv through scripts/python-venv.sh
# (pytest, jeepney, keyring, ...), installs this package into it, and runs
# pytest against build/lib/libkeychainkit.so.0 inside
# scripts/with-secret-service.sh and a throw-away kernel session keyring
# (scripts/with-session-keyring.sh), so every backend runs. Exits
# with pytest's status; "no tests collected" (5) is a failure too. Works from
# any directory.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
library="$root/build/lib/libkeychainkit.so.0"

if [ ! -e "$library" ]; then
    echo "$0: $library is missing: build it first (make lib)" >&2
    exit 2
fi
python=$("$root/scripts/python-venv.sh")
venv=$(dirname "$(dirname "$python")")
# setuptools builds in "$here/build"; a stale one could ship deleted files.
rm -rf "$here/build"
"$python" -m pip install --quiet --disable-pip-version-check --no-build-isolation --force-reinstall --no-deps "$here"
rm -rf "$here/build" "$here/keychainkit.egg-info"

cd "$here"
# The Secret Service server: scripts/with-secret-service.sh (gnome-keyring),
# or another harness named by KEYCHAINKIT_TEST_HARNESS
# (scripts/with-keepassxc.sh).
server_harness=${KEYCHAINKIT_TEST_HARNESS:-scripts/with-secret-service.sh}
status=0
KEYCHAINKIT_LIBRARY="$library" "$root/scripts/with-session-keyring.sh" "$root/$server_harness" \
    "$venv/bin/pytest" -p no:cacheprovider "$@" || status=$?
if [ "$status" -eq 5 ]; then
    echo "$0: pytest collected no tests: failing" >&2
    status=1
fi
exit "$status"
