#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# The Debian packages, as a Debian user gets them: `make deb` with no
# network (in a network namespace of its own), lintian clean on the
# .changes, then — as root — dpkg -i of the five packages and, with the
# Swift toolchain hidden, a C program built with pkg-config alone, the
# binding imported by the system's python3, keychainkit --help, keychainkitd and its user unit, the manual
# pages and the bash completion; then dpkg --purge, after which nothing of
# ours is left (dpkg -L, ldconfig -p, the files). The machine is kept clean:
# the packages are purged on every way out; when any of them was installed
# before the test (yours, or an earlier run's), the test fails instead of
# replacing it. Prints `N passed, N failed`.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
. "$root/IntegrationTests/lib/tally.sh"
work=$(mktemp -d "${TMPDIR:-/tmp}/keychainkit-deb.XXXXXX")
packages="libkeychainkit0 libkeychainkit-dev keychainkit keychainkitd python3-keychainkit"

check() {  # check NAME COMMAND...
    local name=$1; shift
    if "$@" >"$work/out" 2>&1; then pass "$name"; else fail "$name"; sed 's/^/    /' "$work/out" | tail -40; fi
}

installed_here=false
purge() { dpkg --purge $packages >/dev/null 2>&1; }
cleanup() { "$installed_here" && purge; rm -rf "$work"; }
trap cleanup EXIT

offline_build() {
    # unshare -n needs root; a user gets a user namespace of their own.
    local unshare=(unshare -n)
    [ "$(id -u)" -eq 0 ] || unshare=(unshare -rn)
    "${unshare[@]}" sh -c '! getent ahosts deb.debian.org >/dev/null 2>&1 && make -s deb' || return 1
    ls build/deb/*.deb
}
check "make deb builds the five packages with no network" offline_build

lintian_clean() {
    lintian --fail-on error,warning build/deb/*.changes
}
check "lintian --fail-on error,warning on the .changes" lintian_clean

symbols_match_the_abi() {
    local listed exported
    listed=$(dpkg-deb --ctrl-tarfile build/deb/libkeychainkit0_*.deb | tar -xOf - ./symbols | sed -n 's/^ \(kk_[a-z_]*\)@Base .*/\1/p' | sort)
    exported=$(sed -n 's/^symbol //p' abi/keychainkit.abi | sort)
    [ -n "$listed" ] && [ "$listed" = "$exported" ] || { diff <(echo "$listed") <(echo "$exported"); return 1; }
}
check "libkeychainkit0's symbols file lists exactly the ABI baseline's kk_* symbols" symbols_match_the_abi

if [ "$(id -u)" -ne 0 ]; then
    fail "installing and removing the packages needs root (dpkg -i); run as root, as CI does"
    finish
fi

for package in $packages; do
    if dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
        fail "$package is installed already: remove it (dpkg --purge $packages) and run again"
        finish
    fi
done
installed_here=true
check "dpkg -i of the five packages" dpkg -i build/deb/libkeychainkit0_*.deb build/deb/libkeychainkit-dev_*.deb \
    build/deb/keychainkit_*.deb build/deb/keychainkitd_*.deb build/deb/python3-keychainkit_*.deb

# Runs "$@" in a mount namespace where the Swift toolchain's directory is an
# empty one (checked), with only the system's programs on PATH.
without_toolchain() {
    local swift_root
    swift_root=$(dirname "$(dirname "$(readlink -f "$(command -v swift)")")")
    mkdir -p "$work/empty"
    unshare -m sh -c 'mount --bind "$1" "$2" && ! ls "$2"/bin/swift >/dev/null 2>&1 && shift 2 &&
                      PATH=/usr/sbin:/usr/bin:/sbin:/bin exec "$@"' sh "$work/empty" "$swift_root" "$@"
}

installed_c_program() {
    without_toolchain sh -c 'gcc -std=c11 -Wall -Werror "$1" $(pkg-config --cflags --libs keychainkit) -o "$2" && "$2"' \
        sh IntegrationTests/packaging/consumer.c "$work/consumer"
}
check "a C program builds with pkg-config --cflags --libs keychainkit alone and runs (toolchain hidden)" installed_c_program

installed_python() {
    without_toolchain /usr/bin/python3 -c '
import importlib.metadata, keychainkit
with keychainkit.Keychain.in_memory(service="deb-check") as kc:
    kc["token"] = "s3cret"
    assert kc["token"] == "s3cret"
assert keychainkit.library_version() == importlib.metadata.version("keychainkit"), keychainkit.library_version()
assert any(e.name == "keychainkit" for e in importlib.metadata.entry_points(group="keyring.backends"))
print("python3-keychainkit: ok", keychainkit.library_version())'
}
check "the system python3 imports keychainkit, which loads libkeychainkit.so.0 (toolchain hidden)" installed_python

installed_tools() {
    without_toolchain sh -c 'keychainkit --help | grep -q "^usage: keychainkit" &&
        git-credential-keychainkit --help | grep -q "^usage: git-credential-keychainkit" &&
        docker-credential-keychainkit version | grep -q "^docker-credential-keychainkit (keychainkit) " &&
        printf "s3cret\n" | keychainkit --backend memory set token && keychainkit --version'
}
check "keychainkit and its git and Docker helpers run (toolchain hidden)" installed_tools

installed_daemon() {
    without_toolchain sh -c 'keychainkitd --help | grep -q "^usage: keychainkitd" && keychainkitd --version' &&
    man -P cat keychainkitd | grep -q "KEYCHAINKITD(1)" &&
    grep -qx "ExecStart=/usr/bin/keychainkitd" /usr/lib/systemd/user/keychainkitd.service &&
    systemd-analyze verify /usr/lib/systemd/user/keychainkitd.service &&
    # Installed, not enabled: a desktop's own Secret Service keeps the name.
    [ ! -e /etc/systemd/user/default.target.wants/keychainkitd.service ]
}
check "keychainkitd runs, has its manual and a valid user unit, not enabled (toolchain hidden)" installed_daemon

installed_manuals() {
    man -P cat keychainkit | grep -q "KEYCHAINKIT(1)" &&
    man -P cat git-credential-keychainkit | grep -q "GIT-CREDENTIAL-KEYCHAINKIT(1)" &&
    man -P cat docker-credential-keychainkit | grep -q "DOCKER-CREDENTIAL-KEYCHAINKIT(1)" &&
    man -P cat 3 keychainkit | grep -q "kk_get" && man -P cat 3 kk_observe | grep -q "kk_observe" &&
    [ -f /usr/share/bash-completion/completions/keychainkit ] &&
    bash -c '. /usr/share/bash-completion/bash_completion 2>/dev/null; . /usr/share/bash-completion/completions/keychainkit &&
             COMP_WORDS=(keychainkit --backend ""); COMP_CWORD=2; _keychainkit; [ "${COMPREPLY[*]}" = "secret-service kernel file memory" ]'
}
check "man keychainkit, man 3 kk_observe and the bash completion work" installed_manuals

purged_clean() {
    dpkg --purge $packages || return 1
    local package left=""
    for package in $packages; do dpkg -L "$package" >/dev/null 2>&1 && left="$left $package"; done
    ldconfig -p | grep -q keychainkit && left="$left (ldconfig: $(ldconfig -p | grep keychainkit))"
    for path in /usr/bin/keychainkit /usr/bin/git-credential-keychainkit /usr/bin/docker-credential-keychainkit \
        /usr/bin/keychainkitd /usr/lib/systemd/user/keychainkitd.service /usr/share/man/man1/keychainkitd.1.gz \
        /usr/include/keychainkit.h \
        /usr/share/man/man1/keychainkit.1.gz /usr/share/man/man3/kk_get.3.gz /usr/lib/python3/dist-packages/keychainkit \
        /usr/share/bash-completion/completions/keychainkit /usr/share/doc/libkeychainkit0; do
        [ -e "$path" ] && left="$left $path"
    done
    ls /usr/lib/*/libkeychainkit* /usr/lib/*/pkgconfig/keychainkit.pc 2>/dev/null | grep -q . && left="$left $(ls /usr/lib/*/libkeychainkit* 2>/dev/null)"
    [ -z "$left" ] || { echo "left behind:$left"; return 1; }
}
check "dpkg --purge leaves nothing of ours (dpkg -L, ldconfig -p, files)" purged_clean

finish
