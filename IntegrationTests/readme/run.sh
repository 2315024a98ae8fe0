#!/usr/bin/env bash
# Runs the README's code samples, inside the private keyring of
# scripts/with-secret-service.sh: every ```c block is compiled against
# build/lib and run; every ```python block runs with the binding; every
# ```swift block is built as the main.swift of a scratch package that
# depends on this one, and run; every ```console block is a transcript whose
# `$ ` lines run (with build/bin on PATH) and whose other lines are the exact
# output expected. (The ```sh blocks are make targets and install commands,
# run by CI itself and by IntegrationTests/packaging.) Prints `N passed, N failed`.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
[ "${KEYCHAINKIT_TEST_KEYRING:-}" = private ] || exec "$root/scripts/with-secret-service.sh" "$0" "$@"
work="$root/build/readme"
rm -rf "$work"; mkdir -p "$work"
python=$("$root/scripts/python-venv.sh")
. "$root/IntegrationTests/lib/tally.sh"
ok() { pass "$1"; }
bad() { fail "$1"; sed 's/^/    /' "$work/log"; }

# Split the README into numbered files, one per fenced block: 1.c, 2.python, ...
"$python" - "$root/README.md" "$work" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
for index, (language, body) in enumerate(re.findall(r"^```(\w+)\n(.*?)^```", text, flags=re.S | re.M), 1):
    open(f"{sys.argv[2]}/{index}.{language}", "w").write(body)
PY

for sample in "$work"/*.c; do
    name="README C sample $(basename "$sample")"
    if gcc -std=c11 -Wall -Werror -I"$root/include" "$sample" -o "${sample%.c}" \
           -L"$root/build/lib" -lkeychainkit -Wl,-rpath,"$root/build/lib" >"$work/log" 2>&1 &&
       "${sample%.c}" >>"$work/log" 2>&1; then ok "$name"; else bad "$name"; fi
done

for sample in "$work"/*.python; do
    name="README Python sample $(basename "$sample")"
    if KEYCHAINKIT_LIBRARY="$root/build/lib/libkeychainkit.so.0" PYTHONPATH="$root/bindings/python" \
       "$python" "$sample" >"$work/log" 2>&1; then ok "$name"; else bad "$name"; fi
done

for sample in "$work"/*.swift; do
    name="README Swift sample $(basename "$sample")"
    package="$work/swift-$(basename "$sample" .swift)"
    mkdir -p "$package/Sources/Sample"
    cp "$sample" "$package/Sources/Sample/main.swift"
    cat > "$package/Package.swift" <<SWIFT
// swift-tools-version:6.0
import PackageDescription
let package = Package(
    name: "Sample",
    dependencies: [.package(path: "$root")],
    targets: [.executableTarget(name: "Sample", dependencies: [
        .product(name: "KeychainKit", package: "main"), .product(name: "KeychainKitCodable", package: "main")])]
)
SWIFT
    sed -i "s/package: \"main\"/package: \"$(basename "$root" | tr "[:upper:]" "[:lower:]")\"/g" "$package/Package.swift"
    if (cd "$package" && swift build -q >"$work/log" 2>&1 && "$(swift build --show-bin-path)/Sample" >>"$work/log" 2>&1)
    then ok "$name"; else bad "$name"; fi
done

for sample in "$work"/*.console; do
    name="README console transcript $(basename "$sample")"
    # Replay: run each `$ ` line, collect its output; compare with the text.
    : > "$work/actual"
    while IFS= read -r line; do
        case "$line" in
            '$ '*) printf '%s\n' "$line" >> "$work/actual"
                   PATH="$root/build/bin:$PATH" bash -c "${line#\$ }" >> "$work/actual" 2>&1 ;;
        esac
    done < "$sample"
    if diff -u "$sample" "$work/actual" > "$work/log"; then ok "$name"; else bad "$name"; fi
done

finish
