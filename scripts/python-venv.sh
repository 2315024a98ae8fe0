#!/bin/sh
# SPDX-License-Identifier: MIT
# Creates (or reuses) the project's Python virtual environment for tests and
# benchmarks at build/python-venv, with the packages of
# scripts/python-requirements.txt, and prints its python's path.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
venv="$root/build/python-venv"
requirements="$root/scripts/python-requirements.txt"
if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv" >&2
fi
stamp="$venv/.requirements"
if ! cmp -s "$requirements" "$stamp" 2>/dev/null; then
    "$venv/bin/python" -m pip install --quiet --disable-pip-version-check -r "$requirements" >&2
    cp "$requirements" "$stamp"
fi
echo "$venv/bin/python"
