#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Runs the README's code samples, inside the private keyring of
# scripts/with-secret-service.sh: every ```c block is compiled against
# build/lib and run; every ```python block runs with the binding; every
# ```swift block is built as the main.swift of a scratch package that
# depends on this one, and run; every ```console block is a transcript whose
# `$ ` lines run (with build/bin on PATH) and whose other lines are the exact
# output expected. (The ```sh blocks are make targets and install commands,
# run by CI itself and by IntegrationTests/packaging.) Then it checks the
# README's facts that drift against their sources: the Debian packages it
# lists against scripts/install-deps.sh, its list of what `make test` runs
# against the Makefile's `test:` target, its layout table against the
# repository's top-level directories, the layers' imports and graph against
# Package.swift, and every list of the backends against the header's, and
# that it stays under 450 lines. Prints `N passed, N failed`.
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

# The README's facts that drift, each checked against its one source. Each
# check prints what differs into the log and exits non-zero.
facts() {  # facts NAME: runs the Python check NAME (below) on the README
    "$python" - "$1" "$root" >"$work/log" 2>&1 <<'PY'
import os, re, subprocess, sys
check, root = sys.argv[1], sys.argv[2]
readme = open(os.path.join(root, "README.md")).read()
# The README's prose, without its fenced blocks.
prose = re.sub(r"^```.*?^```\n", "", readme, flags=re.S | re.M)

def differ(label_a, a, label_b, b):
    print(f"{label_a}: {' '.join(a) or '(none)'}")
    print(f"{label_b}: {' '.join(b) or '(none)'}")
    sys.exit(1)

if check == "packages":
    # README: "... these Debian packages: `a`, `b`, ... `z`." (one paragraph,
    # which names scripts/install-deps.sh) against the script's packages="...".
    script = open(os.path.join(root, "scripts/install-deps.sh")).read()
    found = re.search(r'^packages="([^"]*)"', script, flags=re.M)
    if not found:
        sys.exit('scripts/install-deps.sh: no packages="..." line')
    wanted = found.group(1).split()
    paragraph = next((p for p in prose.split("\n\n") if "these Debian packages:" in p), None)
    if paragraph is None or "scripts/install-deps.sh" not in paragraph:
        sys.exit("README.md: no paragraph naming scripts/install-deps.sh and 'these Debian packages:'")
    text, listed = paragraph.split("these Debian packages:", 1)[1], []
    while (item := re.match(r"\s*(?:,\s*|and\s+)?`([^`]+)`", text)):
        listed.append(item.group(1))
        text = text[item.end():]
    if sorted(listed) != sorted(wanted) or len(set(listed)) != len(listed):
        print("missing from README.md:", " ".join(sorted(set(wanted) - set(listed))) or "(none)")
        print("not in scripts/install-deps.sh:", " ".join(sorted(set(listed) - set(wanted))) or "(none)")
        differ("README.md", listed, "scripts/install-deps.sh", wanted)

elif check == "make-test":
    # README: "`make test` runs these targets, in order, after `make deps`:"
    # then a list "- `make test-x`: ..." against the Makefile's test: target
    # (its prerequisites, then its $(MAKE) sub-targets in order).
    makefile = open(os.path.join(root, "Makefile")).read()
    rule = re.search(r"^test:([^\n]*)\n((?:\t[^\n]*\n)*)", makefile, flags=re.M)
    if not rule:
        sys.exit("Makefile: no test: target")
    prerequisites = rule.group(1).split()
    steps = re.findall(r"\$\(MAKE\)\s+(?:-\S+\s+)*([\w.-]+)", rule.group(2))
    lines = readme.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith("`make test` runs")), None)
    if start is None:
        sys.exit("README.md: no line beginning '`make test` runs'")
    named = re.findall(r"`make ([\w.-]+)`", lines[start].split(" runs", 1)[1])
    if named != prerequisites:
        differ("README.md runs it after", named, "the Makefile's test: prerequisites", prerequisites)
    listed, i = [], start + 1
    while i < len(lines) and not lines[i].strip():
        i += 1
    while i < len(lines) and lines[i].startswith("- "):
        item = re.match(r"- `make ([\w.-]+)`", lines[i])
        if not item:
            sys.exit(f"README.md:{i + 1}: list item without `make TARGET`: {lines[i]}")
        listed.append(item.group(1))
        i += 1
    if listed != steps:
        differ("README.md", listed, "the Makefile's test: target", steps)

elif check == "layout":
    # README: the table headed "| path | what |". Every top-level directory
    # of the repository has a row naming it or a path inside it; every path
    # a row names exists.
    tracked = subprocess.run(["git", "-C", root, "ls-files"], capture_output=True, text=True)
    if tracked.returncode != 0:
        sys.exit("git ls-files failed (not a git checkout?): " + tracked.stderr)
    directories = sorted({f.split("/", 1)[0] for f in tracked.stdout.splitlines() if "/" in f}
                         & {d for d in os.listdir(root) if os.path.isdir(os.path.join(root, d))})
    lines = readme.splitlines()
    header = next((i for i, line in enumerate(lines) if re.match(r"\|\s*path\s*\|\s*what\s*\|", line)), None)
    if header is None:
        sys.exit("README.md: no table headed '| path | what |'")
    named, ok = set(), True
    for number in range(header + 2, len(lines)):
        if not lines[number].startswith("|"):
            break
        cell = lines[number].split("|")[1]
        paths = re.findall(r"`([^`]+)`", cell)
        if not paths:
            print(f"README.md:{number + 1}: a layout row that names no path")
            ok = False
        for path in paths:
            path = path.rstrip("/")
            named.add(path)
            if not os.path.exists(os.path.join(root, path)):
                print(f"README.md:{number + 1}: the layout table names {path}, which does not exist")
                ok = False
    for directory in directories:
        if not any(path == directory or path.startswith(directory + "/") for path in named):
            print(f"README.md: no layout row for the top-level directory {directory}/")
            ok = False
    sys.exit(0 if ok else 1)
elif check == "backends":
    # The list of backends is the header's (kk_backend_of's names); every
    # other place that lists them says the same, so that adding one is its
    # folder, its opener, and these lists, and a list missed is found here.
    def read(path):
        return open(os.path.join(root, path)).read()
    def slug(name):  # Swift's and Python's spellings: secretService, secret_service
        return re.sub(r"([A-Z])", r"-\1", name).lower().replace("_", "-")
    def found(pattern, path, flags=0):
        match = re.search(pattern, read(path), flags)
        if not match:
            sys.exit(f"{path}: no list of backends where expected ({pattern})")
        return match.group(1)
    backends = sorted(re.findall(r'"([a-z-]+)"', found(
        r"/\*\*((?:(?!\*/).)*)\*/\s*KK_API kk_status kk_backend_of\(", "include/keychainkit.h", re.S)))
    invocation = "Sources/KeychainKitCLI/Invocation.swift"
    lists = {
        "the tool's Invocation.Backend": [value or slug(case) for case, value in re.findall(
            r'case (\w+)(?: = "([^"]+)")?', found(r"enum Backend: String, CaseIterable \{(.*?)\n    \}", invocation, re.S))],
        "the Swift tests' Backend": [slug(case) for case in re.findall(
            r"^    case (\w+)$", found(r"enum Backend: String[^{]*\{(.*?)\n\n", "Tests/KeychainKitTests/Support/Backend.swift", re.S), re.M)],
        "the Python Keychain.backend docstring": re.findall(r'``"([a-z-]+)"``', found(
            r'def backend\(self\) -> str:\s*"""(.*?)"""', "bindings/python/keychainkit/_keychain.py", re.S)),
        "the C runner's usage": found(r"usage: %s ([a-z|-]+)", "IntegrationTests/c/kk_test.c").split("|"),
        "the completion's --backend": found(r'--backend\) COMPREPLY=\(\$\(compgen -W "([^"]+)"', "completions/keychainkit").split(),
    }
    for usage in re.findall(r"--backend ((?:[a-z-]+\|)+[a-z-]+)", read(invocation)):
        lists[f"the tool's help (--backend {usage})"] = usage.split("|")
    ok = True
    for where, names in lists.items():
        if sorted(names) != backends:
            print(f"{where}: {' '.join(sorted(names))}; the header's kk_backend_of: {' '.join(backends)}")
            ok = False
    # The Python suite runs the binding on some of them, each a real one.
    for name in re.findall(r'"(\w+)"', found(r"^BACKENDS = \[([^]]*)\]", "bindings/python/tests/support.py", re.M)):
        if slug(name) not in backends:
            print(f"bindings/python/tests/support.py: BACKENDS names {name}, which is no backend")
            ok = False
    sys.exit(0 if ok else 1)

elif check == "layers":
    # The layers are targets; the compiler finds any built module, so the
    # arrows are checked here: every Swift file imports only the modules its
    # target depends on (Package.swift), the promised graph holds (the bus
    # knows no Secret Service, the core no bus, keychainkitd none of the
    # client's backends, sd-bus is the bus layer's alone), and README's
    # layout row for Sources/ names every target.
    import json
    dumped = subprocess.run(["swift", "package", "--package-path", root, "dump-package"],
                            capture_output=True, text=True)
    if dumped.returncode != 0:
        sys.exit("swift package dump-package failed: " + dumped.stderr)
    targets = {t["name"]: t for t in json.loads(dumped.stdout)["targets"]}
    def direct(name):
        return {d[k][0] for d in targets[name].get("dependencies", []) for k in ("byName", "target") if k in d}
    def below(name):
        seen, todo = set(), [name]
        while todo:
            for d in direct(todo.pop()) - seen:
                seen.add(d)
                if d in targets:
                    todo.append(d)
        return seen
    ok = True
    for name, target in targets.items():
        folder = os.path.join(root, target.get("path") or ("Tests" if target["type"] == "test" else "Sources") + "/" + name)
        for where, _, files in os.walk(folder):
            for file in files:
                if not file.endswith(".swift"):
                    continue
                for number, line in enumerate(open(os.path.join(where, file)), 1):
                    match = re.match(r"^(?:@_exported |@testable )?import (\w+)", line)
                    if match and match.group(1) in targets and match.group(1) not in direct(name):
                        print(f"{os.path.relpath(os.path.join(where, file), root)}:{number}: imports {match.group(1)}, "
                              f"which {name} does not depend on in Package.swift")
                        ok = False
    promises = {
        "KeychainKitBus": {"KeychainKitCore", "KeychainKitSecretService"},
        "KeychainKitCore": {"KeychainKitBus", "KeychainKitSecretService", "CSDBus"},
        "KeychainKitSecretService": {"KeychainKitSecretServiceBackend", "KeychainKitFileStore", "KeychainKitKernelKeyring"},
        "KeychainKitFileStore": {"KeychainKitSecretService", "KeychainKitSecretServiceBackend"},
        "KeychainKitDaemon": {"KeychainKit", "KeychainKitSecretServiceBackend"},
        # The C library and the tool stand on the blocking API: the async
        # forms would link Swift's concurrency runtime into both.
        "KeychainKitC": {"KeychainKit"},
        "KeychainKitCLI": {"KeychainKit"},
    }
    for name, forbidden in promises.items():
        for wrong in sorted(below(name) & forbidden):
            print(f"Package.swift: {name} stands on {wrong}")
            ok = False
    for name in targets:  # (the fuzzers' scripted peer is written with sd-bus itself)
        if name not in ("KeychainKitBus", "KeychainKitFuzzTargets") and "CSDBus" in direct(name):
            print(f"Package.swift: {name} uses sd-bus directly; only KeychainKitBus may")
            ok = False
    row = next((line for line in readme.splitlines() if line.startswith("| `Sources/` |")), "")
    for name, target in targets.items():
        if not (target.get("path") or "Sources").startswith("Tests") and target["type"] != "test" and f"`{name}`" not in row:
            print(f"README.md: the layout row for Sources/ does not name the target {name}")
            ok = False
    sys.exit(0 if ok else 1)
elif check == "length":
    # A tour, not a manual: the header holds the contract.
    lines = readme.count("\n")
    if lines >= 450:
        sys.exit(f"README.md has {lines} lines; keep it under 450 (the header and RELIABILITY.md hold the rest)")
PY
}
for check in packages make-test layout layers backends length; do
    case $check in
        packages)  name="README's Debian packages are scripts/install-deps.sh's" ;;
        make-test) name="README's list of what make test runs is the Makefile's test: target" ;;
        layout)    name="README's layout table has a row per top-level directory, and its paths exist" ;;
        layers)    name="each target imports only what Package.swift gives it, the layers' graph holds, README names every target" ;;
        backends)  name="every list of backends (the tool, its completion, the C, Swift and Python tests) is the header's" ;;
        length)    name="README has fewer than 450 lines" ;;
    esac
    if facts "$check"; then ok "$name"; else bad "$name"; fi
done

finish
