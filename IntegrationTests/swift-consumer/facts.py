# SPDX-License-Identifier: MIT
"""What a Swift package depending on KeychainKit gets, from the manifest as
SwiftPM reads it (`swift package dump-package`), checked against README's
Swift section. Used by run.sh:

    python3 facts.py CHECK MANIFEST.json README.md HEADER.h

CHECK is one of:
  products   README's `.product(name: "X", package: "KeychainKit")` names
             are exactly the package's static (automatic) library products,
             the ones for Swift (`keychainkit`, dynamic, is the C ABI);
             README's `.package(url: ".../KeychainKit.git", from: "V")`
             names that package, V is of the header's major version and not
             newer than it.
  unsafe     no target those products build uses unsafeFlags: SwiftPM
             refuses them in a package depended on by URL (this test's
             dependency by path would not notice).
  packages   the system libraries those products link (systemLibrary
             targets' pkg-config modules, linkedLibrary settings), each
             traced to its Debian -dev package (which owns the .so or .pc
             the build uses) and runtime package (which owns the library
             behind it); README's Swift section names exactly those -dev
             packages and those runtime packages. Prints one line per library; writes the runtime
             packages, one a line, to $FACTS_RUNTIME_PACKAGES when set.
Prints what differs and exits 1 on a mismatch.
"""
import json
import os
import re
import subprocess
import sys

check, manifest_path, readme_path, header_path = sys.argv[1:5]
manifest = json.load(open(manifest_path))
readme = open(readme_path).read()
targets = {t["name"]: t for t in manifest["targets"]}

swift_section = re.search(r"^## Swift\n(.*?)^## ", readme, flags=re.S | re.M)
if not swift_section:
    sys.exit("README.md: no '## Swift' section")
# The section's prose: its fenced blocks are the sample, not the instructions.
prose = re.sub(r"^```.*?^```\n", "", swift_section.group(1), flags=re.S | re.M)

libraries = sorted(p["name"] for p in manifest["products"]
                   if p["type"].get("library") in (["automatic"], ["static"]))


def closure(names):
    """The targets that building these products' targets builds."""
    seen, todo = set(), list(names)
    while todo:
        name = todo.pop()
        if name in seen or name not in targets:
            continue
        seen.add(name)
        for dependency in targets[name]["dependencies"]:
            kind, value = next(iter(dependency.items()))
            if kind in ("byName", "target"):
                todo.append(value[0])
    return sorted(seen)


product_targets = [t for p in manifest["products"] if p["name"] in libraries for t in p["targets"]]
built = closure(product_targets)


def dpkg_owner(path):
    """The Debian package owning `path` (tried also with/without /usr, as
    merged /usr has it both ways), or None."""
    candidates = [path, os.path.realpath(path)]
    for candidate in list(candidates):
        candidates.append(candidate[4:] if candidate.startswith("/usr/") else "/usr" + candidate)
    for candidate in candidates:
        answer = subprocess.run(["dpkg", "-S", candidate], capture_output=True, text=True)
        if answer.returncode == 0:
            return answer.stdout.split(":", 1)[0].strip()
    return None


if check == "products":
    named = re.findall(r'\.product\(name: "([^"]+)", package: "([^"]+)"\)', prose)
    dependency = re.search(r'\.package\(url: "[^"]*/([^"/]+?)(?:\.git)?", from: "(\d+)\.(\d+)\.(\d+)"\)', prose)
    ok = True
    if not dependency:
        print('README.md Swift section: no `.package(url: ".../KeychainKit.git", from: "X.Y.Z")`')
        sys.exit(1)
    identity = dependency.group(1)
    print(f"library products: {' '.join(libraries)}; README names: {' '.join(n for n, _ in named) or '(none)'}")
    if sorted(n for n, _ in named) != libraries:
        print("README.md's .product names are not the package's library products")
        ok = False
    for name, package in named:
        if package != identity:
            print(f'README.md: .product(name: "{name}", package: "{package}"): the package is "{identity}" (its URL)')
            ok = False
    header = open(header_path).read()
    version = tuple(int(re.search(rf"^#define KK_VERSION_{part} (\d+)", header, flags=re.M).group(1))
                    for part in ("MAJOR", "MINOR", "PATCH"))
    wanted = tuple(int(dependency.group(i)) for i in (2, 3, 4))
    # SwiftPM's from: is up to the next major (for 0.x too: 0.8.0 admits 0.9.0).
    if wanted > version or wanted[0] != version[0]:
        print(f"README.md: from: \"{'.'.join(map(str, wanted))}\" does not admit the header's "
              f"{'.'.join(map(str, version))}")
        ok = False
    sys.exit(0 if ok else 1)

elif check == "unsafe":
    unsafe = [name for name in built
              if any("unsafeFlags" in s["kind"] for s in targets[name].get("settings") or [])]
    print(f"targets built for {' '.join(libraries)}: {' '.join(built)}")
    if unsafe:
        print(f"with unsafeFlags (refused in a dependency by URL): {' '.join(unsafe)}")
        sys.exit(1)

elif check == "packages":
    rows, dev, runtime, ok = [], set(), set(), True
    for name in built:
        target = targets[name]
        libs = []  # (library name, how the manifest asks for it)
        if target.get("pkgConfig"):
            module = target["pkgConfig"]
            flags = subprocess.run(["pkg-config", "--libs-only-l", module], capture_output=True, text=True)
            pcdir = subprocess.run(["pkg-config", "--variable=pcfiledir", module], capture_output=True, text=True)
            if flags.returncode != 0 or pcdir.returncode != 0:
                print(f"{name}: pkg-config {module} fails: {flags.stderr.strip()}")
                ok = False
                continue
            owner = dpkg_owner(f"{pcdir.stdout.strip()}/{module}.pc")
            providers = [p for provider in target.get("providers") or [] for p in provider.get("apt", [[]])[0]]
            if owner not in providers:
                print(f"{name}: {module}.pc is {owner}'s; the manifest's providers say {' '.join(providers) or '(none)'}")
                ok = False
            libs += [(flag[2:], f"pkg-config {module}") for flag in flags.stdout.split() if flag.startswith("-l")]
        for setting in target.get("settings") or []:
            if "linkedLibrary" in setting["kind"]:
                libs.append((setting["kind"]["linkedLibrary"]["_0"], "linkedLibrary"))
        for lib, how in libs:
            so = subprocess.run(["gcc", f"-print-file-name=lib{lib}.so"], capture_output=True, text=True).stdout.strip()
            so = os.path.normpath(so)
            dev_package, runtime_package = dpkg_owner(so), dpkg_owner(os.path.realpath(so))
            if not os.path.exists(so) or not dev_package or not runtime_package:
                print(f"{name}: -l{lib} ({how}): no Debian package owns {so}")
                ok = False
                continue
            dev.add(dev_package)
            runtime.add(runtime_package)
            rows.append(f"{name}: -l{lib} ({how}): build {dev_package}, run {runtime_package} "
                        f"({os.path.basename(os.path.realpath(so))})")
    print("\n".join(rows))
    readme_dev = sorted(set(re.findall(r"`(lib[\w.+-]*-dev)`", prose)))
    if readme_dev != sorted(dev):
        print(f"README.md's Swift section names {' '.join(readme_dev) or 'no -dev package'}; "
              f"the products need {' '.join(sorted(dev))}")
        ok = False
    readme_runtime = sorted(set(re.findall(r"`(lib[a-z0-9.+]*[0-9])`", prose)))
    if readme_runtime != sorted(runtime):
        print(f"README.md's Swift section names the runtime packages {' '.join(readme_runtime) or '(none)'}; "
              f"the products link {' '.join(sorted(runtime))}")
        ok = False
    if os.environ.get("FACTS_RUNTIME_PACKAGES"):
        open(os.environ["FACTS_RUNTIME_PACKAGES"], "w").write("".join(p + "\n" for p in sorted(runtime)))
    sys.exit(0 if ok else 1)

else:
    sys.exit(f"facts.py: unknown check {check}")
