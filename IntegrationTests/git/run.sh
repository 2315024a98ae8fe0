#!/bin/sh
# SPDX-License-Identifier: MIT
# Tests of git-credential-keychainkit with real git (IntegrationTests/git/test_git_credential.py),
# against the private Secret Service of a harness: run it inside
# scripts/with-secret-service.sh, scripts/with-kwallet.sh or
# scripts/with-keepassxc.sh.
#
#   IntegrationTests/git/run.sh HELPER PYTHON
#
# HELPER is the git-credential-keychainkit link `make cli` makes; PYTHON has
# pytest and jeepney (scripts/python-venv.sh). git's own
# git-credential-libsecret is built from the git package's contrib sources
# (scripts/build-git-credential-libsecret.sh) and checked against ours both ways
# (on gnome-keyring only: on KeePassXC 2.7.4 libsecret's store over an
# existing item never returns). Then git's own t0303 on HELPER
# (IntegrationTests/git/t0303.sh). Fails when either fails; "no tests
# collected" is a failure too.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
helper=$1 python=$2
shift 2

[ "${KEYCHAINKIT_TEST_KEYRING:-}" = private ] || { echo "$0: run inside scripts/with-secret-service.sh" >&2; exit 2; }

libsecret_helper=""
if [ "${KEYCHAINKIT_TEST_SERVER:-gnome-keyring}" = gnome-keyring ]; then
    libsecret_helper=$("$root/scripts/build-git-credential-libsecret.sh")
fi

status=0
KEYCHAINKIT_GIT_HELPER="$helper" KEYCHAINKIT_GIT_LIBSECRET_HELPER="$libsecret_helper" \
    "$python" -m pytest -p no:cacheprovider -q "$here" "$@" || status=$?
[ "$status" -eq 5 ] && { echo "$0: pytest collected no tests: failing" >&2; status=1; }
"$here/t0303.sh" "$helper" || status=1
exit "$status"
