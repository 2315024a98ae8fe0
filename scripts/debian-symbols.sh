#!/bin/sh
# SPDX-License-Identifier: MIT
# Writes debian/libkeychainkit0.symbols (dpkg-gensymbols' format) for the
# exported symbols the ABI baseline lists ("symbol kk_..." lines), each
# available since VERSION:
#
#   scripts/debian-symbols.sh abi/keychainkit.abi VERSION > debian/libkeychainkit0.symbols
set -eu
abi=$1
version=$2
echo "libkeychainkit.so.0 libkeychainkit0 #MINVER#"
echo "* Build-Depends-Package: libkeychainkit-dev"
sed -n 's/^symbol \(kk_[A-Za-z0-9_]*\)$/ \1@Base '"$version"'/p' "$abi" | sort
