#!/bin/sh
# SPDX-License-Identifier: MIT
# Makes git's own test suite runnable against the installed git, for
# t0303-credential-external.sh (the test git gives authors of credential
# helpers): fetches the source of the Debian `git` package installed here
# through apt (signed indexes, checked hashes; a private apt state in
# build/git-test-suite/apt, so the system's apt configuration is not
# touched), unpacks its upstream tarball and builds what git's test library
# needs (t/helper/test-tool, GIT-BUILD-OPTIONS, templates: about a minute on
# two cores). Prints the suite's t/ directory; a second call only prints it.
# Needs gcc, make, zlib1g-dev and xz-utils (make deps) and Debian's mirror.
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
out="$root/build/git-test-suite"
version=$(dpkg-query -W -f='${Version}' git)
upstream=${version#*:}
upstream=${upstream%-*}
tree="$out/git-$upstream"
flags="NO_CURL=1 NO_EXPAT=1 NO_GETTEXT=1 NO_TCLTK=1 NO_PYTHON=1 NO_PERL=1"

if [ -x "$tree/t/helper/test-tool" ] && [ -d "$tree/templates/blt" ] && [ -f "$tree/GIT-BUILD-OPTIONS" ]; then
    echo "$tree/t"
    exit 0
fi

fail() { echo "build-git-test-suite: $*" >&2; exit 1; }

# A private apt: the sources list names the deb-src suites of this release.
. /etc/os-release
codename=${VERSION_CODENAME:?/etc/os-release names no VERSION_CODENAME}
apt="$out/apt"
mkdir -p "$apt/lists/partial" "$apt/archives/partial"
cat >"$apt/sources.list" <<EOF
deb-src http://deb.debian.org/debian $codename main
deb-src http://deb.debian.org/debian $codename-updates main
deb-src http://deb.debian.org/debian-security $codename-security main
EOF
set -- -o "Dir::Etc::SourceList=$apt/sources.list" -o "Dir::Etc::SourceParts=/nonexistent" \
    -o "Dir::State::Lists=$apt/lists" -o "Dir::Cache::Archives=$apt/archives" -o "APT::Sandbox::User=root"
apt-get "$@" -qq update >"$out/apt.log" 2>&1 || fail "apt-get update of the deb-src indexes failed (see $out/apt.log)"

# The installed version's source; else the release's newest of the same
# upstream version (a security update replaces the Debian revision, and the
# upstream tarball, whose tests these are, stays the same).
cd "$out"
rm -f git_*.orig.tar.*
apt-get "$@" -qq source --download-only "git=$version" >>"$out/apt.log" 2>&1 ||
    apt-get "$@" -qq source --download-only git >>"$out/apt.log" 2>&1 ||
    fail "apt-get source git failed (see $out/apt.log)"
tarball=$(ls git_"$upstream".orig.tar.* 2>/dev/null | head -n 1)
[ -n "$tarball" ] || fail "the source fetched is not git $upstream's: $(ls git_*.orig.tar.* 2>/dev/null)"

rm -rf "$tree"
tar -xf "$tarball" || fail "unpacking $tarball failed"
# shellcheck disable=SC2086 # $flags is a list of make variables
make -C "$tree" -j"$(nproc)" $flags t/helper/test-tool GIT-BUILD-OPTIONS >"$out/build.log" 2>&1 &&
    make -C "$tree/templates" $flags >>"$out/build.log" 2>&1 ||
    fail "building git's test-tool failed (see $out/build.log)"
echo "$tree/t"
