#!/bin/sh
# SPDX-License-Identifier: MIT
# Runs a command in a new, anonymous kernel session keyring (keyctl, Debian
# keyutils), with KEYCHAINKIT_TEST_SESSION_KEYRING=private: the kernel
# keyring tests keep their keys there, and the keyring goes when the
# command ends, never mixing with the user's own session keyring. keyctl
# says "Joined session keyring: N" on standard error first.
#
#   scripts/with-session-keyring.sh COMMAND [ARG...]
set -eu
command -v keyctl >/dev/null 2>&1 || { echo "$0: keyctl is missing (Debian keyutils; make deps)" >&2; exit 2; }
exec keyctl session - env KEYCHAINKIT_TEST_SESSION_KEYRING=private "$@"
