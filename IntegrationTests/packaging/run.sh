#!/usr/bin/env bash
# Packaging tests of libkeychainkit.so: the exported symbols and soname, make
# install / uninstall into a staging DESTDIR, a C program built with only
# pkg-config against the installed prefix, and that program running on a
# machine without the Swift toolchain (its directory hidden by a private
# mount namespace); that the build is up to date for make right after it, and
# that make install of it needs no swift on PATH (as under sudo); that every
# version derives from the header's and that the header, the installed .pc,
# the wheel, debian/changelog and the tool agree (versions.sh); that the
# wheel of make wheel carries the library and LICENSE, says MIT, and works
# pip-installed with the toolchain hidden, and the
# pure package installs from bindings/python. Prints
# `N passed, N failed`; exits non-zero on failure.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
work=$(mktemp -d "${TMPDIR:-/tmp}/keychainkit-packaging.XXXXXX")
trap 'rm -rf "$work"' EXIT
. "$root/IntegrationTests/lib/tally.sh"

check() {  # check NAME COMMAND...
    local name=$1; shift
    if "$@" >"$work/out" 2>&1; then
        pass "$name"
    else
        fail "$name"; sed 's/^/    /' "$work/out"
    fi
}

lib=$(readlink -f build/lib/libkeychainkit.so)
version=$(sed -n 's/^#define KK_VERSION_MAJOR \([0-9]*\)/\1/p' include/keychainkit.h)

only_kk_symbols() {
    local others
    others=$(readelf --dyn-syms -W "$lib" | awk '$5 == "GLOBAL" && $7 != "UND" {print $8}' | grep -v '^kk_')
    [ -z "$others" ] || { echo "exported besides kk_: $others"; return 1; }
    # Every function the header declares is exported.
    local declared
    for declared in $(grep -oE '^KK_API [^(]*\(' include/keychainkit.h | sed -E 's/.*[ *](kk_[a-z_]+)\($/\1/'); do
        readelf --dyn-syms -W "$lib" | awk '{print $8}' | grep -qx "$declared" || { echo "missing $declared"; return 1; }
    done
}
check "exports only the kk_ symbols, all of the header's" only_kk_symbols

soname_is_abi_major() {
    readelf -d "$lib" | grep -q "SONAME.*\[libkeychainkit.so.$version\]"
}
check "soname is libkeychainkit.so.$version" soname_is_abi_major

no_swift_runtime_needed() {
    ! readelf -d "$lib" | grep NEEDED | grep -qi swift
}
check "needs no Swift runtime library" no_swift_runtime_needed

# Right after a build, make's question mode finds nothing to rebuild: the
# library and the tool are files made from their inputs, not a phony build.
up_to_date_after_build() {
    make -s lib cli || return 1
    make -q lib cli || { echo "make -q lib cli: out of date; make -n would run:"; make -n lib cli; return 1; }
}
check "make -q lib cli: nothing to rebuild right after make lib cli" up_to_date_after_build

# As `sudo make install` after `make lib cli`: sudo's PATH has no swift, and
# installing must not build again.
install_without_swift_on_path() {
    local path=/usr/sbin:/usr/bin:/sbin:/bin d="$work/stage-no-swift" p=/usr/local
    if env PATH=$path sh -c 'command -v swift'; then echo "swift is on PATH=$path"; return 1; fi
    env PATH=$path make -C "$root" install DESTDIR="$d" PREFIX=$p || return 1
    cmp "$lib" "$d$p/lib/$(basename "$lib")" &&
    [ "$(readlink "$d$p/lib/libkeychainkit.so.$version")" = "$(basename "$lib")" ] &&
    [ -e "$d$p/lib/libkeychainkit.so" ] &&
    cmp include/keychainkit.h "$d$p/include/keychainkit.h" &&
    grep -qx "prefix=$p" "$d$p/lib/pkgconfig/keychainkit.pc" &&
    [ -x "$d$p/bin/keychainkit" ] && cmp build/bin/keychainkit "$d$p/bin/keychainkit"
}
check "make install with no swift on PATH installs the build (library, header, .pc, tool)" install_without_swift_on_path

stage="$work/stage" prefix=/opt/keychainkit-test
check "make install into DESTDIR" make -s install PREFIX=$prefix DESTDIR="$stage"

installed_layout() {
    local d="$stage$prefix"
    [ -f "$d/lib/libkeychainkit.so.$(sed -n 's/^Version: //p' "$d/lib/pkgconfig/keychainkit.pc")" ] &&
    [ "$(readlink "$d/lib/libkeychainkit.so.$version")" != "" ] &&
    [ -e "$d/lib/libkeychainkit.so" ] && [ -f "$d/include/keychainkit.h" ] &&
    ! grep -q "$stage" "$d/lib/pkgconfig/keychainkit.pc"
}
check "installed library, symlinks, header and .pc (no staging path inside)" installed_layout

# The manual pages and the bash completion are installed, and each page
# reads without a warning from man.
installed_manuals() {
    local d="$stage$prefix" page out
    [ -f "$d/share/man/man1/keychainkit.1" ] && [ -f "$d/share/man/man1/git-credential-keychainkit.1" ] &&
    [ -f "$d/share/man/man1/docker-credential-keychainkit.1" ] && [ -L "$d/bin/docker-credential-keychainkit" ] &&
    [ -f "$d/share/man/man3/keychainkit.3" ] && [ -f "$d/share/man/man3/kk_get.3" ] &&
    [ -f "$d/share/bash-completion/completions/keychainkit" ] || { echo "a page or the completion is missing"; return 1; }
    for page in "$d"/share/man/man1/*.1 "$d"/share/man/man3/*.3; do
        out=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -E UTF-8 -l "$page" 2>&1 >/dev/null)
        [ -z "$out" ] || { echo "$page: $out"; return 1; }
    done
}
check "installed manual pages (man --warnings clean) and bash completion" installed_manuals

# Every option of keychainkit --help is in keychainkit(1), and every function
# the header exports has its page in section 3.
manuals_complete() {
    local d="$stage$prefix" option function missing=""
    for option in $(build/bin/keychainkit --help | grep -oE -- '(^| )--?[a-z][a-z-]*' | sort -u); do
        grep -qF -- "$(sed 's/-/\\-/g' <<<"$option")" "$d/share/man/man1/keychainkit.1" || missing="$missing $option"
    done
    for function in $(sed -n 's/^KK_API [^(]*[ *]\(kk_[a-z_]*\)(.*/\1/p' include/keychainkit.h); do
        [ -f "$d/share/man/man3/$function.3" ] || missing="$missing $function(3)"
    done
    [ -z "$missing" ] || { echo "no entry for:$missing"; return 1; }
}
check "keychainkit(1) has every option of --help; every exported function has its page" manuals_complete

# The bash completion offers the accounts of the service as they are, quoted,
# and never expands them: anyone who can write to the keychain chooses them.
completion_is_inert() {
    mkdir -p "$work/fake-bin"
    printf '#!/bin/sh\nprintf "%%s\\n" alice "a\\$(touch %s/pwned)" "b*" "with space"\n' "$work" > "$work/fake-bin/keychainkit"
    chmod +x "$work/fake-bin/keychainkit"
    PATH="$work/fake-bin:$PATH" bash -c '. /usr/share/bash-completion/bash_completion 2>/dev/null; . completions/keychainkit &&
        COMP_WORDS=(keychainkit get ""); COMP_CWORD=2; _keychainkit; printf "%s\n" "${COMPREPLY[@]}"' > "$work/offered" || return 1
    cat "$work/offered"
    [ ! -e "$work/pwned" ] || { echo "a stored name ran a command"; return 1; }
    [ "$(cat "$work/offered")" = "$(printf '%s\n' alice 'a\$\(touch\ '"$work"'/pwned\)' 'b\*' 'with\ space')" ]
}
check "bash completion offers stored account names quoted, never expanded" completion_is_inert

# Hardened as Debian builds binaries (make lib cli): no RUNPATH, full RELRO
# with immediate binding, a PIE tool, and hardening-check's verdict. Its
# control-flow check is left out: Debian 12's own dpkg-buildflags do not
# enable -fcf-protection, and swiftc (6.3) emits no CET instrumentation, so
# no Swift binary can carry the property (forcing it with -z ibt would crash
# on hardware that enforces it).
hardened() {
    local binary
    for binary in "$lib" build/bin/keychainkit; do
        ! readelf -d "$binary" | grep -qE 'RUNPATH|RPATH' || { echo "$binary has a RUNPATH"; return 1; }
        readelf -d "$binary" | grep -q 'BIND_NOW' || { echo "$binary: no BIND_NOW"; return 1; }
        readelf -lW "$binary" | grep -q GNU_RELRO || { echo "$binary: no RELRO"; return 1; }
        hardening-check --nocfprotection "$binary" || return 1
    done
    readelf -d build/bin/keychainkit | grep -q 'FLAGS_1.*PIE' || { echo "the tool is no PIE"; return 1; }
}
check "hardened: no RUNPATH, RELRO, BIND_NOW, PIE tool, hardening-check passes (library and tool)" hardened

# git runs `git-credential-keychainkit get` for `credential.helper keychainkit`:
# the installed link runs the helper (an operation git does not know is
# ignored; a request with no Secret Service fails fast, exit 4).
installed_git_helper() {
    local helper="$stage$prefix/bin/git-credential-keychainkit" status
    [ "$(readlink "$helper")" = keychainkit ] || return 1
    "$helper" frobnicate </dev/null || return 1
    printf 'protocol=https\nhost=example.com\n\n' |
        DBUS_SESSION_BUS_ADDRESS="unix:path=$work/no-bus" timeout 10 "$helper" get
    status=$?
    [ "$status" -eq 4 ] || { echo "exit $status, wanted 4"; return 1; }
}
check "installed git-credential-keychainkit link runs git's credential helper" installed_git_helper

build_with_pkg_config() {
    local flags
    flags=$(PKG_CONFIG_SYSROOT_DIR="$stage" PKG_CONFIG_LIBDIR="$stage$prefix/lib/pkgconfig" \
            pkg-config --cflags --libs keychainkit) || return 1
    echo "pkg-config: $flags"
    gcc -std=c11 -Wall -Werror IntegrationTests/packaging/consumer.c $flags -o "$work/consumer"
}
check "a C program builds with pkg-config --cflags --libs keychainkit" build_with_pkg_config

check "it runs against the installed library" env LD_LIBRARY_PATH="$stage$prefix/lib" "$work/consumer"

without_swift_toolchain() {
    local swift_root
    swift_root=$(dirname "$(dirname "$(readlink -f "$(command -v swift)")")")
    mkdir -p "$work/empty"
    # Hide the toolchain's directory behind an empty one, in a mount namespace
    # of this command only, and prove it is hidden before running.
    unshare -m sh -c 'mount --bind "$1" "$2" && ! ls "$2"/lib/swift >/dev/null 2>&1 &&
                      LD_LIBRARY_PATH="$3" "$4" && "$5" --version' \
        sh "$work/empty" "$swift_root" "$stage$prefix/lib" "$work/consumer" "$stage$prefix/bin/keychainkit"
}
check "the C program and the keychainkit tool run with the Swift toolchain hidden" without_swift_toolchain

# Foundation stays out of the core, the library and the tool (DESIGN.md): no
# source imports it but KeychainKitCodable's, and neither binary holds a
# Foundation type (Swift's metadata names every type it uses, "10Foundation...").
without_foundation() {
    local importing
    importing=$(grep -rlE '^\s*(@_exported )?import (Foundation|FoundationEssentials)\b' Sources | grep -v '^Sources/KeychainKitCodable/')
    [ -z "$importing" ] || { echo "imports Foundation: $importing"; return 1; }
    ! grep -c 10Foundation "$lib" build/bin/keychainkit | grep -v ':0$' &&
    ! ldd "$lib" build/bin/keychainkit | grep -i foundation
}
check "no Foundation in the core, libkeychainkit.so or the keychainkit tool" without_foundation

# One source of the version: KK_VERSION_* in the header. Everything else
# derives it; each derived value is compared with the header's here.
header_version="$version.$(sed -n 's/^#define KK_VERSION_MINOR \([0-9]*\)/\1/p' include/keychainkit.h).$(sed -n 's/^#define KK_VERSION_PATCH \([0-9]*\)/\1/p' include/keychainkit.h)"
versions_agree() {
    local made swift_soname
    made=$(make -s --no-print-directory --eval='print-version: ; @echo $(VERSION)' print-version) || return 1
    [ "$made" = "$header_version" ] || { echo "Makefile VERSION $made, header $header_version"; return 1; }
    swift_soname=$(swift package dump-package | grep -o 'soname=libkeychainkit\.so\.[0-9]*') || return 1
    [ "$swift_soname" = "soname=libkeychainkit.so.$version" ] || { echo "Package.swift: $swift_soname, header major $version"; return 1; }
    [ "$(readlink -f build/lib/libkeychainkit.so)" = "$(readlink -f "build/lib/libkeychainkit.so.$header_version")" ] ||
        { echo "build/lib/libkeychainkit.so is not libkeychainkit.so.$header_version"; return 1; }
    # The Python package states no version of its own.
    grep -qE '^dynamic = \[(.*, )?"version"(, .*)?\]$' bindings/python/pyproject.toml || { echo "pyproject.toml: version not dynamic"; return 1; }
    ! grep -nE '^version *=' bindings/python/pyproject.toml || { echo "pyproject.toml states a version"; return 1; }
    ! grep -nE '__version__ *= *["0-9]' bindings/python/keychainkit/__init__.py || { echo "__init__.py states a version"; return 1; }
}
check "one version ($header_version): Makefile, Package.swift soname, library file, pyproject.toml dynamic" versions_agree

# The wheel: built by make wheel, tagged for this platform, carrying the
# library; then installed with pip into a fresh venv and used, on the memory
# and Secret Service backends, with the Swift toolchain hidden and neither
# KEYCHAINKIT_LIBRARY nor LD_LIBRARY_PATH set.
wheel_is_built_and_carries_the_library() {
    make -s wheel >/dev/null || return 1
    local wheels=(build/keychainkit-*.whl)
    [ "${#wheels[@]}" -eq 1 ] && [ -f "${wheels[0]}" ] || { echo "wheels: ${wheels[*]}"; return 1; }
    local expected="keychainkit-$header_version-py3-none-linux_$(uname -m).whl"
    [ "$(basename "${wheels[0]}")" = "$expected" ] || { echo "wheel ${wheels[0]}, expected $expected"; return 1; }
    unzip -p "${wheels[0]}" "keychainkit-$header_version.dist-info/WHEEL" | grep -qx 'Root-Is-Purelib: false' || return 1
    unzip -p "${wheels[0]}" "keychainkit/libkeychainkit.so.$version" > "$work/bundled.so" || return 1
    cmp "$work/bundled.so" "$lib"
}
check "make wheel: keychainkit-$header_version-py3-none-linux_$(uname -m).whl, with build/lib's libkeychainkit.so.$version inside" \
    wheel_is_built_and_carries_the_library

# The wheel says it is MIT-licensed and carries the repository's LICENSE.
wheel_is_licensed() {
    local wheel dist
    wheel=$(ls build/keychainkit-*.whl) || return 1
    dist="keychainkit-$header_version.dist-info"
    unzip -p "$wheel" "$dist/METADATA" | grep -qx 'License-Expression: MIT' || { echo "$dist/METADATA: no License-Expression: MIT"; return 1; }
    unzip -p "$wheel" "$dist/licenses/LICENSE" | cmp - LICENSE
}
check "the wheel's metadata says License-Expression: MIT and it carries LICENSE" wheel_is_licensed

# The header, the installed .pc, the wheel, debian/changelog and the
# installed tool say one version (versions.sh names any that does not).
check "one version in the header, the installed .pc, the wheel, debian/changelog and keychainkit --version" \
    IntegrationTests/packaging/versions.sh --pc "$stage$prefix/lib/pkgconfig/keychainkit.pc" \
    --wheel "$(ls build/keychainkit-*.whl 2>/dev/null | head -n 1)" --cli "$stage$prefix/bin/keychainkit"

cat > "$work/use_wheel.py" <<'PY'
import importlib.metadata, importlib.util, os, sys, sysconfig
import keychainkit
from keychainkit import Keychain
expected = sys.argv[1]
package = os.path.dirname(keychainkit.__file__)
assert package.startswith(sysconfig.get_paths()["platlib"]), package
assert keychainkit.library_path() == os.path.join(package, "libkeychainkit.so.0"), keychainkit.library_path()
versions = (keychainkit.__version__, importlib.metadata.version("keychainkit"), keychainkit.library_version())
assert versions == (expected,) * 3, versions
# keyring's entry point names a module the wheel carries; it registers ours
# when keyring is there (this venv has none: then nothing, quietly).
(plugin,) = [e for e in importlib.metadata.entry_points(group="keyring.backends") if e.name == "keychainkit"]
registered = plugin.load().Keyring
has_keyring = importlib.util.find_spec("keyring") is not None
assert (registered is not None) == has_keyring and (registered is None or registered.__module__ == "keychainkit.keyring_backend")
backends = [Keychain.in_memory(service="wheel-check")]
if os.environ.get("KEYCHAINKIT_TEST_KEYRING") == "private":
    backends.append(Keychain(service="wheel-check", prompts="never"))
for kc in backends:
    with kc:
        kc["account"] = "value"
        assert kc["account"] == "value" and list(kc) == ["account"]
        del kc["account"]
        assert "account" not in kc
    print("ok", kc.backend)
PY

without_swift_toolchain_the_wheel_works() {
    local swift_root
    swift_root=$(dirname "$(dirname "$(readlink -f "$(command -v swift)")")")
    mkdir -p "$work/empty"
    # In a mount namespace where the toolchain is hidden (checked), with no
    # swift on PATH: a fresh venv, pip install of the wheel (nothing from an
    # index), then the check from a neutral directory, on its own and inside
    # a private Secret Service.
    (cd "$work" && env -u KEYCHAINKIT_LIBRARY -u LD_LIBRARY_PATH -u PYTHONPATH PATH=/usr/sbin:/usr/bin:/sbin:/bin \
        unshare -m sh -c 'mount --bind "$1" "$2" && ! ls "$2"/lib/swift >/dev/null 2>&1 &&
                          ! command -v swift && python3 -m venv venv &&
                          venv/bin/python -m pip install --quiet --disable-pip-version-check --no-index "$3" &&
                          venv/bin/python use_wheel.py "$4" && "$5" venv/bin/python use_wheel.py "$4"' \
            sh "$work/empty" "$swift_root" "$(ls "$root"/build/keychainkit-*.whl)" "$header_version" \
            "$root/scripts/with-secret-service.sh") || return 1
    grep -qx 'ok secret-service' "$work/out" || { echo "the Secret Service check did not run"; return 1; }
}
check "the wheel, pip-installed in a fresh venv with the toolchain hidden, loads its own library (memory, Secret Service)" \
    without_swift_toolchain_the_wheel_works

# README's other Python install: `pip install bindings/python` (pure Python)
# into a fresh venv, used from a neutral directory over the built library.
source_package_installs_and_works() {
    python3 -m venv "$work/source-venv" &&
    "$work/source-venv/bin/python" -m pip install --quiet --disable-pip-version-check bindings/python || return 1
    (cd "$work" && env -u PYTHONPATH KEYCHAINKIT_LIBRARY="$lib" "$work/source-venv/bin/python" -c '
import pathlib, keychainkit
package = pathlib.Path(keychainkit.__file__).parent
assert "site-packages" in package.parts and (package / "py.typed").exists(), package
with keychainkit.Keychain.in_memory(service="install-check") as kc:
    kc["account"] = "value"
    assert kc["account"] == "value"')
}
check "pip install bindings/python in a fresh venv: the installed package works" source_package_installs_and_works

uninstalled() {
    make -s uninstall PREFIX=$prefix DESTDIR="$stage" &&
    [ -z "$(find "$stage" -type f -o -type l)" ]
}
check "make uninstall removes every installed file" uninstalled

finish
