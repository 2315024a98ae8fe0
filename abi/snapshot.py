# SPDX-License-Identifier: MIT
"""Prints the ABI of libkeychainkit as sorted lines: every function
prototype and function-pointer typedef of include/keychainkit.h, every
enumerator and ABI macro with its value, and every symbol the shared library
exports. abi/keychainkit.abi is the committed baseline; IntegrationTests/abi/check.sh
fails when a baseline line is missing (a change or a removal), and accepts
additions.

Usage: python3 abi/snapshot.py HEADER LIBRARY
"""
import re
import subprocess
import sys


def declarations(header_text):
    text = re.sub(r"/\*.*?\*/", " ", header_text, flags=re.S)
    text = re.sub(r"//[^\n]*", " ", text)
    lines = set()
    for match in re.finditer(r"^KK_API\s+([^;]+);", text, flags=re.M):
        lines.add("function " + " ".join(match.group(1).split()))
    for match in re.finditer(r"typedef\s+([^;{}]*\(\s*\*\s*kk_\w+\s*\)[^;]*);", text):
        lines.add("typedef " + " ".join(match.group(1).split()))
    for match in re.finditer(r"typedef\s+struct\s+(kk_\w+)\s+(kk_\w+)\s*;", text):
        lines.add(f"opaque struct {match.group(1)} {match.group(2)}")
    for match in re.finditer(r"\b(KK_[A-Z0-9_]+)\s*=\s*(-?\d+)", text):
        lines.add(f"constant {match.group(1)} = {match.group(2)}")
    for match in re.finditer(r"#define\s+(KK_MAX_\w+)\s+(.+)", text):
        lines.add(f"macro {match.group(1)} {' '.join(match.group(2).split())}")
    return lines


def exported_symbols(library):
    output = subprocess.run(["readelf", "--dyn-syms", "-W", library], check=True,
                            capture_output=True, text=True).stdout
    symbols = set()
    for row in output.splitlines():
        fields = row.split()
        if len(fields) >= 8 and fields[4] == "GLOBAL" and fields[6] != "UND":
            symbols.add("symbol " + fields[7].split("@")[0])
    return symbols


def main():
    header, library = sys.argv[1:3]
    with open(header) as file:
        lines = declarations(file.read()) | exported_symbols(library)
    print("\n".join(sorted(lines)))


if __name__ == "__main__":
    main()
