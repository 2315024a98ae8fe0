#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# KeychainKit as another Swift package uses it. Checks README's Swift
# section against the manifest as SwiftPM reads it (facts.py): its
# `.product` names are exactly the library products, its `from:` version
# admits the header's, no target those products build uses unsafeFlags
# (refused in a dependency by URL), and the -dev and runtime packages it
# names are exactly those owning the libraries the products link (libsystemd
# through pkg-config, libgcrypt through linkedLibrary). Then it writes a package
# in build/swift-consumer/package whose manifest depends on this repository
# by path (absolute) and on the products KeychainKit and KeychainKitCodable,
# with main.swift of this folder; builds it (debug, as `swift build`); checks
# that the program needs no system library but those packages' (and the C
# runtime's and the toolchain's Swift runtime); runs its round trip on the
# in-memory backend, then, inside scripts/with-secret-service.sh, on a
# private gnome-keyring, where it also reads an item secret-tool stored and
# leaves one secret-tool then finds. Prints `N passed, N failed`; exits
# non-zero on failure.
#
# The package's .build is kept between runs, so that a run after a change
# rebuilds only what changed (SwiftPM follows the dependency's files and
# manifest); it is removed first when the toolchain (swift --version) or the
# repository's path differs from the build's.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
work="$root/build/swift-consumer"
swift=${SWIFT:-swift}
. "$root/IntegrationTests/lib/tally.sh"

owner() {  # owner PATH: the Debian package owning PATH (merged /usr: also tried with or without /usr)
    local path candidate
    for path in "$1" "$(readlink -f "$1")"; do
        for candidate in "$path" "${path#/usr}" "/usr$path"; do
            dpkg -S "$candidate" 2>/dev/null | sed -n '1s/:.*//p' | grep . && return 0
        done
    done
    return 1
}

# ---- inside the private keyring: run.sh --in-private-keyring PROGRAM ----------
if [ "${1:-}" = --in-private-keyring ]; then
    program=$2
    seed_service=com.example.consumer.seeded seed_account=seeded seed_value='stored by secret-tool ✓'
    if ! printf %s "$seed_value" | secret-tool store --label='consumer seed' service "$seed_service" username "$seed_account"; then
        fail "secret-tool stores the item the consumer reads"
        finish
    fi
    started=$(date +%s%N)
    if "$program" secret-service "$seed_service" "$seed_account" "$seed_value" >"$work/secret-service-out" 2>&1; then
        pass "round trip on gnome-keyring (string, update, removal, subscripts, Codable JSON), and secret-tool's item read and removed ($((($(date +%s%N) - started) / 1000000)) ms)"
    else
        fail "round trip on gnome-keyring"; sed 's/^/    /' "$work/secret-service-out"
    fi
    if secret-tool lookup service "$seed_service" username "$seed_account" >/dev/null 2>&1; then
        fail "secret-tool still finds the item the consumer removed"
    else
        pass "secret-tool no longer finds the item the consumer removed"
    fi
    handoff=$(secret-tool lookup service com.example.consumer username handoff 2>&1)
    if [ "$handoff" = "from the consumer" ]; then
        pass "secret-tool reads the item the consumer wrote"
    else
        fail "secret-tool reads the item the consumer wrote: got '$handoff'"
    fi
    secret-tool clear service com.example.consumer username handoff
    left=$(secret-tool search --all service com.example.consumer 2>&1)
    if [ -z "$left" ]; then pass "the consumer left no other item"; else fail "the consumer left items:"; echo "$left" | sed 's/^/    /'; fi
    finish
fi

mkdir -p "$work/package/Sources/Consumer" || exit 2
facts() {  # facts CHECK NAME
    if FACTS_RUNTIME_PACKAGES="$work/runtime-packages" python3 "$here/facts.py" "$1" "$work/manifest.json" \
           "$root/README.md" "$root/include/keychainkit.h" >"$work/out" 2>&1; then
        pass "$2"
    else
        fail "$2"
    fi
    sed 's/^/    /' "$work/out"
}

# ---- README's Swift section against the manifest ------------------------------
if ! "$swift" package --package-path "$root" --scratch-path "$work/manifest" dump-package \
        >"$work/manifest.json" 2>"$work/out"; then
    fail "swift package dump-package reads the manifest"; sed 's/^/    /' "$work/out"
    finish
fi
facts products "README's .product names are the library products, its from: version admits the header's"
facts unsafe "no target of those products uses unsafeFlags (a dependency by URL may not)"
facts packages "README's Swift section names the -dev and runtime packages of every system library the products link"

# ---- the consumer package ------------------------------------------------------
write_if_changed() {  # write_if_changed FILE < CONTENT: keeps FILE's time when equal
    cat >"$1.new" && { cmp -s "$1.new" "$1" && rm -f "$1.new" || mv -f "$1.new" "$1"; }
}
# SwiftPM's identity of a dependency by path: its directory's name, lowercased.
identity=$(basename "$root" | tr '[:upper:]' '[:lower:]')
write_if_changed "$work/package/Package.swift" <<SWIFT
// swift-tools-version:6.0
// Written by IntegrationTests/swift-consumer/run.sh: another package,
// depending on KeychainKit as README's Swift section says (by path here).
import PackageDescription

let package = Package(
    name: "Consumer",
    dependencies: [.package(path: "$root")],
    targets: [
        .executableTarget(name: "Consumer", dependencies: [
            .product(name: "KeychainKit", package: "$identity"),
            .product(name: "KeychainKitCodable", package: "$identity"),
        ]),
    ]
)
SWIFT
write_if_changed "$work/package/Sources/Consumer/main.swift" <"$here/main.swift"
key="$root $("$swift" --version 2>&1)"
if [ "$(cat "$work/build-key" 2>/dev/null)" != "$key" ]; then
    rm -rf "$work/package/.build"
    printf '%s' "$key" >"$work/build-key"
fi

started=$(date +%s)
if (cd "$work/package" && "$swift" build >"$work/build.log" 2>&1); then
    pass "a package depending on this one by path builds, importing KeychainKit and KeychainKitCodable ($(($(date +%s) - started)) s)"
else
    fail "a package depending on this one by path builds"; tail -n 40 "$work/build.log" | sed 's/^/    /'
    finish
fi
program="$(cd "$work/package" && "$swift" build --show-bin-path)/Consumer"

# The libraries the program needs: the toolchain's Swift runtime (a debug
# build links it dynamically), the C runtime, and the runtime packages of
# the libraries facts.py traced; nothing else.
needs_only_those_libraries() {
    local toolchain name path package ok=0 allowed
    toolchain=$(dirname "$(dirname "$(readlink -f "$(command -v "$swift")")")")
    allowed=" libc6 libstdc++6 libgcc-s1 $(tr '\n' ' ' <"$work/runtime-packages")"
    : >"$work/needed"
    for name in $(readelf -d "$program" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
        path=$(ldd "$program" | awk -v n="$name" '$1 == n {print $3}')
        case $path in
            "$toolchain"/*) echo "$name: the Swift runtime ($path)"; continue ;;
        esac
        package=$(owner "$path") || { echo "$name: $path, of no Debian package"; ok=1; continue; }
        echo "$name: $package" | tee -a "$work/needed"
        case $allowed in *" $package "*) ;; *) echo "    $package: not the C runtime's nor a package facts.py traced"; ok=1 ;; esac
    done
    for package in $(cat "$work/runtime-packages"); do
        grep -q ": $package\$" "$work/needed" ||
            { echo "$package: traced from the manifest, but the program needs no library of it"; ok=1; }
    done
    return $ok
}
if needs_only_those_libraries >"$work/out" 2>&1; then
    pass "the program needs the Swift and C runtimes and $(tr '\n' ' ' <"$work/runtime-packages")only"
else
    fail "the program's libraries"
fi
sed 's/^/    /' "$work/out"

started=$(date +%s%N)
if "$program" memory >"$work/out" 2>&1; then
    pass "round trip on the in-memory backend (string, update, removal, subscripts, Codable JSON) ($((($(date +%s%N) - started) / 1000000)) ms)"
else
    fail "round trip on the in-memory backend"; sed 's/^/    /' "$work/out"
fi

"$root/scripts/with-secret-service.sh" "$0" --in-private-keyring "$program" >"$work/secret-service.log" 2>&1
sed 's/^/    /' "$work/secret-service.log"
add_closing_line "gnome-keyring (scripts/with-secret-service.sh)" "$work/secret-service.log"

finish
