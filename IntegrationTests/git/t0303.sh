#!/bin/sh
# SPDX-License-Identifier: MIT
# git's own test for credential helpers, t0303-credential-external.sh, run
# unchanged from the source of the installed git
# (scripts/build-git-test-suite.sh) against the installed git, with HELPER
# as its GIT_TEST_CREDENTIAL_HELPER, on the Secret Service of the
# environment: run it inside scripts/with-secret-service.sh (or another
# harness), or with KEYCHAINKIT_TEST_KEYRING=private on a private bus.
#
#   IntegrationTests/git/t0303.sh HELPER
#
# HELPER is a path: git-credential-keychainkit, or git's
# git-credential-libsecret. Prints git's TAP lines, then "N passed, N
# failed"; fails when any test fails, when the test ran none, or skipped.
set -eu

root=$(cd "$(dirname "$0")/../.." && pwd)
helper=${1:?usage: t0303.sh HELPER}

[ "${KEYCHAINKIT_TEST_KEYRING:-}" = private ] || { echo "$0: run inside scripts/with-secret-service.sh" >&2; exit 2; }
[ -x "$helper" ] || { echo "$0: $helper is not a program" >&2; exit 2; }

suite=$("$root/scripts/build-git-test-suite.sh")
log=$(mktemp)
trap 'rm -f "$log"' EXIT
status=0
(cd "$suite" && GIT_TEST_INSTALLED=$(dirname "$(command -v git)") GIT_TEST_CREDENTIAL_HELPER=$helper \
    sh t0303-credential-external.sh) >"$log" 2>&1 || status=$?
cat "$log"

passed=$(grep -c '^ok ' "$log" || true)
failed=$(grep -c '^not ok ' "$log" || true)
echo "$passed passed, $failed failed"
[ "$status" -eq 0 ] && [ "$failed" -eq 0 ] && [ "$passed" -gt 0 ] || exit 1
