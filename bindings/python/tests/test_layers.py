# SPDX-License-Identifier: MIT
"""The package's inner structure: no import cycles between its modules, and
handles typed so that ctypes refuses any other pointer in their place."""

from __future__ import annotations

import ast
import ctypes
import re
from pathlib import Path
from typing import Dict, List, Set

import pytest

import keychainkit
from keychainkit import _ffi

PACKAGE = Path(keychainkit.__file__).resolve().parent


def relative_imports(module: Path) -> Set[str]:
    """The package modules ``module`` imports (``from .x import y``, ``from . import x``)."""
    imported: Set[str] = set()
    for node in ast.walk(ast.parse(module.read_text())):
        if isinstance(node, ast.ImportFrom) and node.level == 1:
            if node.module:
                imported.add(node.module)
            else:
                imported.update(alias.name for alias in node.names)
    return imported


def cycle(graph: Dict[str, Set[str]]) -> List[str]:
    """One import cycle of ``graph`` as a path of module names, or ``[]``."""
    done: Set[str] = set()

    def visit(name: str, path: List[str]) -> List[str]:
        if name in path:
            return path[path.index(name):] + [name]
        if name in done:
            return []
        for imported in sorted(graph.get(name, ())):
            found = visit(imported, path + [name])
            if found:
                return found
        done.add(name)
        return []

    for name in sorted(graph):
        found = visit(name, [])
        if found:
            return found
    return []


def test_no_module_of_the_package_imports_itself_back() -> None:
    graph = {path.stem: relative_imports(path) for path in PACKAGE.glob("_*.py")}
    assert "_ffi" in graph["_handle"], "the import graph was not read"
    assert cycle(graph) == []


def test_the_cycle_finder_finds_a_cycle() -> None:
    assert cycle({"_a": {"_b"}, "_b": {"_c"}, "_c": {"_a"}}) == ["_a", "_b", "_c", "_a"]


def test_the_observation_module_imports_nothing_of_the_package() -> None:
    assert relative_imports(PACKAGE / "_observation.py") == set()


def test_a_handle_argument_refuses_a_bare_void_pointer() -> None:
    with pytest.raises(ctypes.ArgumentError):
        _ffi.kk_close(ctypes.c_void_p(0))


def test_every_handle_argument_is_the_opaque_type() -> None:
    handles = {
        name
        for name, (_, argtypes) in _ffi._PROTOTYPES.items()
        for argument in argtypes
        if argument in (_ffi.KeychainPointer, ctypes.POINTER(_ffi.KeychainPointer))
    }
    header = (Path(__file__).resolve().parents[3] / "include" / "keychainkit.h").read_text()
    taking_a_handle = {
        name for name, arguments in re.findall(r"KK_API [^;(]*?(kk_\w+)\(([^;]*)\);", header) if "kk_keychain" in arguments
    }
    assert taking_a_handle and handles == taking_a_handle
