#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The ABI guard: every line of the committed baseline abi/keychainkit.abi
# (prototypes, typedefs, status values, exported symbols) must still hold
# for the current header and library; new lines (additions) are fine.
# After a deliberate, compatible addition, refresh the baseline with
#   python3 abi/snapshot.py include/keychainkit.h build/lib/libkeychainkit.so > abi/keychainkit.abi
# Prints `N passed, N failed`.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
. "$root/IntegrationTests/lib/tally.sh"
current=$(python3 "$root/abi/snapshot.py" "$root/include/keychainkit.h" "$root/build/lib/libkeychainkit.so") || {
    fail "cannot read the current ABI"; finish; }
while IFS= read -r line; do
    [ -z "$line" ] && continue
    if grep -qxF -- "$line" <<<"$current"; then
        passed=$((passed + 1))   # one per baseline line, silently (tally.sh's counter)
    else
        fail "ABI BROKEN: no longer true: $line"
    fi
done < "$root/abi/keychainkit.abi"
added=$(comm -13 <(sort "$root/abi/keychainkit.abi") <(sort <<<"$current"))
[ -n "$added" ] && { echo "additions not yet in the baseline (fine; refresh it when releasing):"; sed 's/^/    /' <<<"$added"; }
finish
