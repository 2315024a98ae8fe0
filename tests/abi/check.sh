#!/usr/bin/env bash
# The ABI guard: every line of the committed baseline abi/keychainkit.abi
# (prototypes, typedefs, status values, exported symbols) must still hold
# for the current header and library; new lines (additions) are fine.
# After a deliberate, compatible addition, refresh the baseline with
#   python3 abi/snapshot.py include/keychainkit.h build/lib/libkeychainkit.so > abi/keychainkit.abi
# Prints `N passed, N failed`.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
current=$(python3 "$root/abi/snapshot.py" "$root/include/keychainkit.h" "$root/build/lib/libkeychainkit.so") || {
    echo "cannot read the current ABI"; echo "0 passed, 1 failed"; exit 1; }
passed=0 failed=0
while IFS= read -r line; do
    [ -z "$line" ] && continue
    if grep -qxF -- "$line" <<<"$current"; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1)); echo "ABI BROKEN: no longer true: $line"
    fi
done < "$root/abi/keychainkit.abi"
added=$(comm -13 <(sort "$root/abi/keychainkit.abi") <(sort <<<"$current"))
[ -n "$added" ] && { echo "additions not yet in the baseline (fine; refresh it when releasing):"; sed 's/^/    /' <<<"$added"; }
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
