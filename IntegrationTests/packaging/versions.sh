#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# One version everywhere. The header's KK_VERSION_MAJOR/MINOR/PATCH are the
# source (KK_VERSION_NUMBER as the preprocessor computes it must match them);
# the pkg-config file, the Python wheel's metadata, debian/changelog's top
# entry (its upstream part) and `keychainkit --version` must say the same.
# Each source that disagrees is named with what it says. Builds nothing.
#
#   IntegrationTests/packaging/versions.sh [--pc FILE] [--wheel FILE] [--cli PROGRAM]
#
# --pc: an installed keychainkit.pc; without it, the one `make install`
#   writes: pkgconfig/keychainkit.pc.in filled in with the Makefile's VERSION.
# --wheel: a built wheel, whose METADATA is read; without it, the metadata
#   setuptools prepares from a copy of bindings/python (the project's venv,
#   or $PYTHON).
# --cli: default build/bin/keychainkit.
# IntegrationTests/packaging/run.sh runs it on what it installed and built.
# Prints a line per source, then `versions agree: X` (exit 0) or the
# disagreements (exit 1).
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
absolute() { [ -z "$1" ] || readlink -m -- "$1"; }  # as given from here, before the cd
pc="" wheel="" pc_given=false wheel_given=false cli="$root/build/bin/keychainkit"
while [ $# -gt 0 ]; do
    case $1 in
        --pc) pc=$(absolute "${2-}"); pc_given=true; shift 2 ;;
        --wheel) wheel=$(absolute "${2-}"); wheel_given=true; shift 2 ;;
        --cli) cli=$(absolute "${2-}"); shift 2 ;;
        *) echo "usage: $0 [--pc FILE] [--wheel FILE] [--cli PROGRAM]" >&2; exit 2 ;;
    esac
done
cd "$root"
work=$(mktemp -d "${TMPDIR:-/tmp}/keychainkit-versions.XXXXXX")
trap 'rm -rf "$work"' EXIT

header=include/keychainkit.h
macro() { sed -n "s/^#define KK_VERSION_$1 \([0-9][0-9]*\)\$/\1/p" "$header"; }
major=$(macro MAJOR) minor=$(macro MINOR) patch=$(macro PATCH)
if [ -z "$major" ] || [ -z "$minor" ] || [ -z "$patch" ]; then
    echo "$header: no #define KK_VERSION_MAJOR/MINOR/PATCH <number>"; exit 1
fi
expected="$major.$minor.$patch"
disagree=0
report() {  # report SOURCE VERSION [DETAIL]: one source's version, compared
    local source=$1 version=$2 detail=${3:-}
    if [ "$version" = "$expected" ]; then
        printf '%-48s %s%s\n' "$source" "$version" "${detail:+ ($detail)}"
    else
        printf 'DISAGREES: %s says %s%s, but %s says %s\n' "$source" "${version:-nothing}" \
            "${detail:+ ($detail)}" "$header" "$expected"
        disagree=1
    fi
}
report "$header" "$expected" "KK_VERSION_MAJOR/MINOR/PATCH"

# KK_VERSION_NUMBER, as a C program sees it.
number=$(printf '#include "keychainkit.h"\nKK_VERSION_NUMBER\n' | cc -E -P -I include -x c - 2>&1 | tail -n 1)
if [[ "$number" =~ ^[-+*()0-9\ ]+$ ]] && [ "$((number))" -eq $((major * 10000 + minor * 100 + patch)) ]; then
    report "$header KK_VERSION_NUMBER" "$expected" "$((number))"
else
    report "$header KK_VERSION_NUMBER" "$number" "not $((major * 10000 + minor * 100 + patch))"
fi

# The pkg-config file.
if "$pc_given"; then
    report "$pc" "$(sed -n 's/^Version: *//p' "$pc" 2>/dev/null)"
else
    template=pkgconfig/keychainkit.pc.in
    made=$(make -s --no-print-directory --eval='print-version: ; @echo $(VERSION)' print-version 2>/dev/null)
    report "$template (as make install fills it in)" "$(sed -n 's/^Version: *//p' "$template" | sed "s/@VERSION@/$made/")"
fi

# The wheel's metadata.
if "$wheel_given"; then
    metadata=$(unzip -p "$wheel" '*.dist-info/METADATA' 2>/dev/null)
    report "${wheel:-(no wheel given)} (METADATA)" "$(sed -n 's/^Version: *//p' <<<"$metadata" | head -n 1)"
else
    # A copy, so that the build backend's egg-info lands outside the tree;
    # the header beside it, where setup.py reads the version.
    mkdir -p "$work/tree/bindings" "$work/tree/include" "$work/metadata"
    tar -C bindings --exclude=__pycache__ --exclude='*.egg-info' --exclude=build --exclude=tests -chf - python |
        tar -C "$work/tree/bindings" -xf -
    cp "$header" "$work/tree/include/"
    python=${PYTHON:-$("$root/scripts/python-venv.sh")}
    if name=$(cd "$work/tree/bindings/python" && "$python" -c '
import sys
from setuptools import build_meta
print(build_meta.prepare_metadata_for_build_wheel(sys.argv[1]))' "$work/metadata" 2>"$work/backend.log" | tail -n 1); then
        report "bindings/python (wheel metadata)" "$(sed -n 's/^Version: *//p' "$work/metadata/$name/METADATA" | head -n 1)"
    else
        sed 's/^/    /' "$work/backend.log" | tail -n 20
        report "bindings/python (wheel metadata)" "" "setuptools could not prepare it"
    fi
fi

# debian/changelog's top entry: "keychainkit (EPOCH:UPSTREAM-REVISION) ...".
entry=$(sed -n '1s/^[^ ]* (\([^)]*\)).*/\1/p' debian/changelog)
upstream=${entry#[0-9]*:}
upstream=${upstream%-*}
report "debian/changelog (top entry)" "$upstream" "$entry"

# The tool: `keychainkit X.Y.Z`, from the library's kk_version_string().
if [ -x "$cli" ]; then
    said=$("$cli" --version 2>&1)
    report "$cli --version" "${said#keychainkit }" "$said"
else
    report "$cli --version" "" "no such program: make cli"
fi

if [ "$disagree" -ne 0 ]; then
    echo "versions disagree (the header's KK_VERSION_* are the source: bump the others with it)"
    exit 1
fi
echo "versions agree: $expected"
