#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# Packaging tests of libkeychainkit.so: the exported symbols and soname, make
# install / uninstall into a staging DESTDIR, a C program built with only
# pkg-config against the installed prefix, and that program running on a
# machine without the Swift toolchain (its directory hidden by a private
# mount namespace); that the build is up to date for make right after it, and
# that make install of it needs no swift on PATH (as under sudo); that every
# version derives from the header's and that the header, the installed .pc,
# the wheel, debian/changelog and the tool agree (versions.sh); that the
# wheel of make wheel is manylinux (auditwheel show agrees), bundles
# libsystemd and libgcrypt under new names, carries the library (still only
# kk_ exports) and LICENSE, says MIT, and works pip-installed with the
# toolchain hidden and in a minimal Debian chroot with nothing of ours
# (wheel-chroot.sh: keyring's round trip too); that the pure package installs
# from bindings/python, and the sdist of make sdist builds and works over the
# installed library. Prints `N passed, N failed`; exits non-zero on failure.
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

only_kk_symbols() {  # only_kk_symbols [LIBRARY]: build/lib's by default
    local library=${1:-$lib} others
    others=$(readelf --dyn-syms -W "$library" | awk '$5 == "GLOBAL" && $7 != "UND" {print $8}' | grep -v '^kk_')
    [ -z "$others" ] || { echo "$library exports besides kk_: $others"; return 1; }
    # Every function the header declares is exported. (The table is read
    # once: `readelf | grep -q` under pipefail fails when grep, having found
    # the name, exits before readelf has written the rest: SIGPIPE.)
    local declared exported
    exported=$(readelf --dyn-syms -W "$library" | awk '{print $8}')
    for declared in $(grep -oE '^KK_API [^(]*\(' include/keychainkit.h | sed -E 's/.*[ *](kk_[a-z_]+)\($/\1/'); do
        grep -qx "$declared" <<<"$exported" || { echo "$library: missing $declared"; return 1; }
    done
}
check "exports only the kk_ symbols, all of the header's" only_kk_symbols

soname_is_abi_major() {
    readelf -d "$lib" | grep -q "SONAME.*\[libkeychainkit.so.$version\]"
}
check "soname is libkeychainkit.so.$version" soname_is_abi_major

# Both runtimes are linked in (Makefile: STATIC_CXX), so no process loads and
# binds them: the library and the tool need only libc and the two they use.
no_runtime_library_needed() {
    for binary in "$lib" build/bin/keychainkit build/bin/keychainkitd; do
        ! readelf -d "$binary" | grep NEEDED | grep -Ei 'swift|libstdc\+\+|libgcc_s|dispatch' ||
            { echo "$binary needs the library above"; return 1; }
    done
}
check "the library and the programs need no Swift, C++ or unwinder runtime library" no_runtime_library_needed

# Nor do they carry Swift's concurrency runtime and libdispatch, whose
# constructors and relocations every process would pay at start (Makefile:
# NO_OBSERVATION; the C library and the tool stand on KeychainKitAPI, not on
# the module with the async forms). Their messages are the trace of them.
no_concurrency_runtime() {
    local binary found
    for binary in "$lib" build/bin/keychainkit build/bin/keychainkitd; do
        found=$(strings -a "$binary" | grep -E '^_Concurrency/|LIBDISPATCH_STRICT' | head -n 3)
        [ -z "$found" ] || { echo "$binary carries the concurrency runtime or libdispatch: $found"; return 1; }
    done
}
check "the library and the programs carry no Swift concurrency runtime or libdispatch" no_concurrency_runtime

# Linked in, GCC 12's libstdc++ would call glibc 2.36's arc4random
# (CKeychainKitSupport/arc4random.c answers it): nothing may need a glibc
# newer than the 2.35 the wheel's tag and the README promise.
glibc_2_35_is_enough() {
    local binary newest
    for binary in "$lib" build/bin/keychainkit build/bin/keychainkitd; do
        newest=$(readelf -V -W "$binary" | grep -oE 'Name: GLIBC_2\.[0-9]+' | sed 's/.*GLIBC_2\.//' | sort -n | tail -n 1)
        [ -n "$newest" ] && [ "$newest" -le 35 ] || { echo "$binary needs GLIBC_2.$newest"; return 1; }
    done
}
check "the library and the programs need glibc 2.35 at most" glibc_2_35_is_enough

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

# The wheel: built by make wheel, a manylinux wheel for the oldest glibc its
# libraries' symbols allow, which auditwheel show accepts; then installed with
# pip into a fresh venv and used, on the memory and Secret Service backends,
# with the Swift toolchain hidden and neither KEYCHAINKIT_LIBRARY nor
# LD_LIBRARY_PATH set, and in a minimal Debian chroot.
python=$(scripts/python-venv.sh)
machine=$(uname -m)
wheel_is_manylinux() {
    make -s wheel >/dev/null || return 1
    local wheels=(build/keychainkit-*.whl)
    [ "${#wheels[@]}" -eq 1 ] && [ -f "${wheels[0]}" ] || { echo "wheels: ${wheels[*]}"; return 1; }
    check_manylinux "${wheels[0]}"
}
# check_manylinux WHEEL: named keychainkit-VERSION-py3-none-manylinux_2_N_ARCH
# with 2.N the newest GLIBC_ symbol version any of its libraries needs, and
# auditwheel show finds it consistent with that tag. Leaves it unpacked in
# $work/wheel.
check_manylinux() {
    local wheel=$1 unpacked="$work/wheel" newest expected shown
    rm -rf "$unpacked" && mkdir -p "$unpacked" && unzip -q "$wheel" -d "$unpacked" || return 1
    newest=$(find "$unpacked" -name '*.so*' -type f -exec readelf -V -W {} + | grep -oE 'Name: GLIBC_2\.[0-9]+' |
             sed 's/.*GLIBC_2\.//' | sort -n | tail -n 1)
    [ -n "$newest" ] || { echo "$wheel: no library needing a GLIBC_2.N version"; return 1; }
    expected="keychainkit-$header_version-py3-none-manylinux_2_${newest}_$machine.whl"
    [ "$(basename "$wheel")" = "$expected" ] || { echo "wheel $(basename "$wheel"), expected $expected"; return 1; }
    grep -qx 'Root-Is-Purelib: false' "$unpacked/keychainkit-$header_version.dist-info/WHEEL" &&
    grep -qx "Tag: py3-none-manylinux_2_${newest}_$machine" "$unpacked/keychainkit-$header_version.dist-info/WHEEL" ||
        { echo "WHEEL: not Root-Is-Purelib: false and Tag: py3-none-manylinux_2_${newest}_$machine"; return 1; }
    shown=$("$python" -m auditwheel show "$wheel" 2>&1) || { echo "$shown"; return 1; }
    tr -s ' \n' '  ' <<<"$shown" | grep -qF "is consistent with the following platform tag: \"manylinux_2_${newest}_$machine\"" ||
        { echo "auditwheel show:"; echo "$shown"; return 1; }
}
check "make wheel: keychainkit-$header_version-py3-none-manylinux_2_N_$machine.whl, 2.N the newest glibc its libraries need; auditwheel show agrees" \
    wheel_is_manylinux

# auditwheel repair changed the library's needed entries and RPATH, nothing
# else: its code is build/lib's, it exports only kk_ (only_kk_symbols, on
# it), and it needs only libraries of the manylinux policy and the copies in
# keychainkit.libs/, renamed (SONAME and file: name-HASH.so.*) so that they
# never stand for the machine's; libsystemd and libgcrypt among them.
wheel_library_is_the_build_with_its_libraries_bundled() {
    local unpacked="$work/wheel" library needed rpath bundled soname
    library="$unpacked/keychainkit/libkeychainkit.so.$version"
    [ -f "$library" ] || { echo "no keychainkit/libkeychainkit.so.$version in the wheel"; return 1; }
    cmp <(objcopy -O binary --only-section=.text "$library" /dev/stdout) <(objcopy -O binary --only-section=.text "$lib" /dev/stdout) ||
        { echo "its .text is not build/lib's"; return 1; }
    readelf -d "$library" | grep -q "SONAME.*\[libkeychainkit.so.$version\]" || { echo "soname changed"; return 1; }
    only_kk_symbols "$library" || return 1
    rpath=$(readelf -d "$library" | sed -n 's/.*(RPATH).*\[\(.*\)\]/\1/p; s/.*(RUNPATH).*\[\(.*\)\]/\1/p')
    [ "$rpath" = '$ORIGIN/../keychainkit.libs' ] || { echo "RPATH/RUNPATH: '$rpath'"; return 1; }
    for needed in $(readelf -d "$library" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
        case $needed in
            libc.so.6|libm.so.6|libstdc++.so.6|libgcc_s.so.1|ld-linux-*.so.2|libpthread.so.0|libdl.so.2|librt.so.1) ;;
            *) [ -f "$unpacked/keychainkit.libs/$needed" ] || { echo "needs $needed, neither the policy's nor bundled"; return 1; } ;;
        esac
    done
    for bundled in "$unpacked"/keychainkit.libs/*; do
        soname=$(readelf -d "$bundled" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
        [ "$soname" = "$(basename "$bundled")" ] && [[ $soname =~ ^lib[a-z0-9_+-]+-[0-9a-f]{8}\.so ]] ||
            { echo "$bundled: SONAME '$soname', not its renamed file name"; return 1; }
    done
    readelf -d "$library" | grep -q 'NEEDED.*\[libsystemd-[0-9a-f]*\.so\.0' &&
    readelf -d "$library" | grep -q 'NEEDED.*\[libgcrypt-[0-9a-f]*\.so\.20' ||
        { echo "libsystemd or libgcrypt not needed under a bundled name"; return 1; }
}
check "the wheel's libkeychainkit.so.$version: build/lib's code, only kk_ exports, needs only the policy's libraries and keychainkit.libs/'s renamed libsystemd, libgcrypt and theirs" \
    wheel_library_is_the_build_with_its_libraries_bundled

# The wheel says it is MIT-licensed and carries the repository's LICENSE.
wheel_is_licensed() {
    local wheel dist
    wheel=$(ls build/keychainkit-*.whl) || return 1
    dist="keychainkit-$header_version.dist-info"
    unzip -p "$wheel" "$dist/METADATA" | grep -qx 'License-Expression: MIT' || { echo "$dist/METADATA: no License-Expression: MIT"; return 1; }
    unzip -p "$wheel" "$dist/licenses/LICENSE" | cmp - LICENSE
}
check "the wheel's metadata says License-Expression: MIT and it carries LICENSE" wheel_is_licensed

# Every source file names its licence in its first two lines
# (SPDX-License-Identifier: MIT; after a #! or swift-tools-version line).
sources_name_their_licence() {
    local files missing
    files=$(git ls-files -- '*.swift' '*.c' '*.h' '*.py' '*.sh' Makefile .ci/run completions/keychainkit) &&
        [ -n "$files" ] || { echo "git ls-files listed no sources"; return 1; }
    missing=$(while read -r f; do head -n 2 "$f" | grep -q 'SPDX-License-Identifier: MIT' || echo "$f"; done <<<"$files")
    [ -z "$missing" ] || { echo "no SPDX-License-Identifier: MIT in the first two lines of:"; echo "$missing"; return 1; }
}
check "every source file names its licence (SPDX-License-Identifier: MIT)" sources_name_their_licence

# What the wheel carries besides our code travels with its terms: for each
# library in keychainkit.libs/, the copyright file of the Debian package that
# installed the original (and the common licences it refers to), and the
# Swift runtime's licence, each a License-File of the metadata.
wheel_carries_bundled_licences() {
    local wheel dist metadata listing library original package path
    wheel=$(ls build/keychainkit-*.whl) || return 1
    dist="keychainkit-$header_version.dist-info"
    metadata=$(unzip -p "$wheel" "$dist/METADATA") || return 1
    listing=$(unzip -Z1 "$wheel") || return 1
    for library in $(grep '^keychainkit\.libs/.' <<<"$listing"); do
        original=$(basename "$library" | sed 's/-[0-9a-f]\{8\}\.so/.so/')
        package=$(dpkg-query -S "*/$original" | sed -n '1s/:.*//p')
        [ -n "$package" ] || { echo "no Debian package owns $original"; return 1; }
        grep -qx "License-File: bundled/$package/copyright" <<<"$metadata" ||
            { echo "$library: no License-File: bundled/$package/copyright"; return 1; }
        unzip -p "$wheel" "$dist/licenses/bundled/$package/copyright" | cmp -s - "/usr/share/doc/$package/copyright" ||
            { echo "$library: $dist/licenses/bundled/$package/copyright is not $package's copyright"; return 1; }
    done
    # libsystemd's and libgcrypt's LGPL-2.1, to which their copyright files refer.
    unzip -p "$wheel" "$dist/licenses/bundled/common-licenses/LGPL-2.1" | cmp -s - /usr/share/common-licenses/LGPL-2.1 ||
        { echo "no LGPL-2.1 text in the wheel"; return 1; }
    grep -qx "License-File: bundled/swift/LICENSE.txt" <<<"$metadata" &&
        unzip -p "$wheel" "$dist/licenses/bundled/swift/LICENSE.txt" | grep -q "Runtime Library Exception" ||
        { echo "no Swift runtime licence (with its Runtime Library Exception) in the wheel"; return 1; }
}
check "the wheel carries the licences of the libraries it bundles and of the Swift runtime" wheel_carries_bundled_licences

# The header, the installed .pc, the wheel, debian/changelog and the
# installed tool say one version (versions.sh names any that does not).
check "one version in the header, the installed .pc, the wheel, debian/changelog and keychainkit --version" \
    IntegrationTests/packaging/versions.sh --pc "$stage$prefix/lib/pkgconfig/keychainkit.pc" \
    --wheel "$(ls build/keychainkit-*.whl 2>/dev/null | head -n 1)" --cli "$stage$prefix/bin/keychainkit"

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
                          venv/bin/python "$6" "$4" && "$5" venv/bin/python "$6" "$4"' \
            sh "$work/empty" "$swift_root" "$(ls "$root"/build/keychainkit-*.whl)" "$header_version" \
            "$root/scripts/with-secret-service.sh" "$root/IntegrationTests/packaging/use_wheel.py") || return 1
    grep -qx 'ok secret-service' "$work/out" || { echo "the Secret Service check did not run"; return 1; }
}
check "the wheel, pip-installed in a fresh venv with the toolchain hidden, loads its own library and libsystemd/libgcrypt (memory, Secret Service)" \
    without_swift_toolchain_the_wheel_works

# The same wheel where nothing of ours is: a Debian 12 chroot with python3,
# python3-venv, dbus and gnome-keyring only, kept in build/chroot between
# runs (wheel-chroot.sh says how).
check "a minimal Debian 12 chroot (debootstrap minbase; python3, python3-venv, dbus, gnome-keyring; no -dev package, nothing of ours)" \
    IntegrationTests/packaging/wheel-chroot.sh prepare
check "in it, the wheel pip-installed into a fresh venv: the smoke check (memory, private gnome-keyring) and keyring's round trip through keychainkit_keyring" \
    IntegrationTests/packaging/wheel-chroot.sh test "$(ls build/keychainkit-*.whl 2>/dev/null | head -n 1)"

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

# The sdist of make sdist: the package's source with its version and
# LICENSE, no library; pip builds and installs it in a fresh venv (with
# build isolation: setuptools from PyPI), a pure package that loads the
# library installed above through the dynamic loader, or $KEYCHAINKIT_LIBRARY.
sdist_builds_and_works_over_the_installed_library() {
    local sdist="build/keychainkit-$header_version.tar.gz" venv="$work/sdist-venv" package
    make -s sdist >/dev/null || return 1
    [ "$(ls build/keychainkit-*.tar.gz)" = "$sdist" ] || { echo "sdists: $(ls build/keychainkit-*.tar.gz)"; return 1; }
    ! tar tzf "$sdist" | grep -E '\.so(\.|$)|\.libs/' || { echo "the sdist carries a library"; return 1; }
    tar xzOf "$sdist" "keychainkit-$header_version/PKG-INFO" | grep -qx "Version: $header_version" ||
        { echo "PKG-INFO: not Version: $header_version"; return 1; }
    tar xzOf "$sdist" "keychainkit-$header_version/LICENSE" | cmp - LICENSE || return 1
    python3 -m venv "$venv" &&
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "$sdist" || return 1
    package=$("$venv/bin/python" -c 'import importlib.util; print(importlib.util.find_spec("keychainkit").submodule_search_locations[0])')
    ! ls -d "$package"/libkeychainkit* "$package"/../keychainkit.libs 2>/dev/null || { echo "a library was installed with it"; return 1; }
    cat > "$work/use_sdist.py" <<'PY'
import os, sys, keychainkit
assert keychainkit.library_path() == sys.argv[1], keychainkit.library_path()
assert keychainkit.__version__ == keychainkit.library_version() == sys.argv[2]
with open("/proc/self/maps") as maps:  # the library loaded is the one meant
    loaded = {line.split()[-1] for line in maps if "libkeychainkit" in line}
assert {os.path.realpath(path) for path in loaded} == {os.path.realpath(sys.argv[3])}, loaded
with keychainkit.Keychain.in_memory(service="sdist-check") as kc:
    kc["account"] = "value"
    assert kc["account"] == "value"
PY
    (cd "$work" && env -u PYTHONPATH -u KEYCHAINKIT_LIBRARY LD_LIBRARY_PATH="$stage$prefix/lib" \
        "$venv/bin/python" use_sdist.py "libkeychainkit.so.$version" "$header_version" "$stage$prefix/lib/libkeychainkit.so.$version") &&
    (cd "$work" && env -u PYTHONPATH -u LD_LIBRARY_PATH KEYCHAINKIT_LIBRARY="$lib" \
        "$venv/bin/python" use_sdist.py "$lib" "$header_version" "$lib")
}
check "make sdist: keychainkit-$header_version.tar.gz without a library; pip installs it in a fresh venv, over the installed library (dynamic loader, \$KEYCHAINKIT_LIBRARY)" \
    sdist_builds_and_works_over_the_installed_library

uninstalled() {
    make -s uninstall PREFIX=$prefix DESTDIR="$stage" &&
    [ -z "$(find "$stage" -type f -o -type l)" ]
}
check "make uninstall removes every installed file" uninstalled

finish
