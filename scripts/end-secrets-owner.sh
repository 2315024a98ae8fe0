#!/bin/sh
# SPDX-License-Identifier: MIT
# Run on the private session bus of scripts/with-keepassxc.sh or
# with-kwallet.sh, at their end: SIGKILLs the process that owns
# org.freedesktop.secrets, unless it is the script's own server (process
# EXCEPT, which the script stops itself). A test that restarted the server
# (kt_ss_restart_locked, through $KEYCHAINKIT_TEST_SERVER_START) leaves the
# new process detached from the script; this ends it before the temporary
# HOME it writes to is removed.
#
#   scripts/end-secrets-owner.sh EXCEPT
owner=$(gdbus call --session --dest org.freedesktop.DBus --object-path /org/freedesktop/DBus \
    --method org.freedesktop.DBus.GetConnectionUnixProcessID org.freedesktop.secrets 2>/dev/null |
    sed -n 's/^(uint32 \([0-9]*\),)$/\1/p')
if [ -n "$owner" ] && [ "$owner" != "${1:-}" ]; then
    kill -9 "$owner" 2>/dev/null
fi
exit 0
