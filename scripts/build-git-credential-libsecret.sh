#!/bin/sh
# SPDX-License-Identifier: MIT
# Builds git's own credential helper for libsecret from the contrib sources
# the Debian `git` package ships (/usr/share/doc/git/contrib/credential/
# libsecret) into build/git-credential-libsecret/, for the interop tests and
# the benchmark; prints its path. Needs gcc and libsecret-1-dev (make deps).
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
source=/usr/share/doc/git/contrib/credential/libsecret/git-credential-libsecret.c
out="$root/build/git-credential-libsecret"
mkdir -p "$out"
# shellcheck disable=SC2046 # pkg-config output is a list of flags
gcc -O2 -o "$out/git-credential-libsecret" "$source" $(pkg-config --cflags --libs libsecret-1 glib-2.0)
echo "$out/git-credential-libsecret"
