#!/bin/sh
# SPDX-License-Identifier: MIT
# Tests of docker-credential-keychainkit (IntegrationTests/docker/
# test_docker_credential.py): the docker-credential-helpers protocol, items
# shared both ways with Debian's docker-credential-secretservice, a real
# podman login/logout against a local docker-registry, and a locked keyring
# or no Secret Service. Run inside scripts/with-secret-service.sh:
#
#   IntegrationTests/docker/run.sh HELPER PYTHON
#
# HELPER is the docker-credential-keychainkit link `make cli` makes; PYTHON
# has pytest and jeepney (scripts/python-venv.sh). Exits with pytest's
# status; "no tests collected" is a failure too.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
helper=$1 python=$2
shift 2

[ "${KEYCHAINKIT_TEST_KEYRING:-}" = private ] || { echo "$0: run inside scripts/with-secret-service.sh" >&2; exit 2; }

status=0
KEYCHAINKIT_DOCKER_HELPER="$helper" "$python" -m pytest -p no:cacheprovider -q "$here" "$@" || status=$?
[ "$status" -eq 5 ] && { echo "$0: pytest collected no tests: failing" >&2; exit 1; }
exit "$status"
