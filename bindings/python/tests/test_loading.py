# SPDX-License-Identifier: MIT
"""Finding libkeychainkit: the order of candidates, failures, versions."""

from __future__ import annotations

import ctypes.util
import os
import subprocess
import sys
from pathlib import Path
from typing import Dict

import pytest

import keychainkit
from keychainkit import _ffi, _library
from keychainkit._library import ENV_VAR, SONAME, Candidate

LIBRARY = os.path.realpath(keychainkit.library_path())


def import_in_a_new_process(environment: Dict[str, str]) -> subprocess.CompletedProcess:
    code = "import keychainkit; print(keychainkit.library_path(), keychainkit.library_version())"
    return subprocess.run([sys.executable, "-c", code], env=environment, capture_output=True, text=True, timeout=60)


def clean_environment() -> Dict[str, str]:
    return {name: value for name, value in os.environ.items() if name not in (ENV_VAR, "LD_LIBRARY_PATH")}


def test_the_environment_variable_names_the_only_candidate(tmp_path: Path) -> None:
    (tmp_path / "libkeychainkit.so.0").symlink_to(LIBRARY)
    found = list(_library.candidates({ENV_VAR: "/some/where.so"}, tmp_path))
    assert found == [Candidate("$KEYCHAINKIT_LIBRARY", "/some/where.so")]


def test_without_it_bundled_then_soname_then_find_library(tmp_path: Path) -> None:
    (tmp_path / f"libkeychainkit.so.{keychainkit.__version__}").symlink_to(LIBRARY)
    (tmp_path / "libkeychainkit.so.0").symlink_to(LIBRARY)
    found = list(_library.candidates({}, tmp_path))
    assert [candidate.name for candidate in found] == [
        str(tmp_path / "libkeychainkit.so.0"),
        str(tmp_path / f"libkeychainkit.so.{keychainkit.__version__}"),
        SONAME,
        ctypes.util.find_library("keychainkit"),
    ]


def test_a_bundled_library_is_loaded_first(tmp_path: Path) -> None:
    (tmp_path / "libkeychainkit.so.0").symlink_to(LIBRARY)
    library = _library.load(["kk_get"], _library.candidates({}, tmp_path))
    assert library._name == str(tmp_path / "libkeychainkit.so.0")


def test_a_wrong_environment_variable_is_an_import_error_without_fallback() -> None:
    result = import_in_a_new_process({**clean_environment(), ENV_VAR: "/nonexistent/libkeychainkit.so.0", "LD_LIBRARY_PATH": os.path.dirname(LIBRARY)})
    assert result.returncode != 0
    assert "ImportError" in result.stderr
    assert "$KEYCHAINKIT_LIBRARY: '/nonexistent/libkeychainkit.so.0'" in result.stderr
    assert "dynamic loader" not in result.stderr


def test_the_soname_is_found_through_the_loader() -> None:
    result = import_in_a_new_process({**clean_environment(), "LD_LIBRARY_PATH": os.path.dirname(LIBRARY)})
    assert result.returncode == 0, result.stderr
    assert result.stdout.split()[0] == SONAME


def test_every_failure_is_named_in_one_import_error() -> None:
    tried = [
        Candidate("nowhere", None),
        Candidate("missing file", "/nonexistent/libkeychainkit.so.0"),
        Candidate("not keychainkit", "libc.so.6"),
    ]
    with pytest.raises(ImportError) as caught:
        _library.load(_ffi._PROTOTYPES, tried)
    message = str(caught.value)
    assert "nowhere: nothing found" in message
    assert "missing file: '/nonexistent/libkeychainkit.so.0': " in message
    assert "not keychainkit: 'libc.so.6': it does not export kk_version_number" in message
    assert ENV_VAR in message


BUILT = _library.REQUIRED_MAJOR * 10000 + _library.REQUIRED_MINOR * 100  # MAJOR.MINOR.0 of this build


def shown(number: int) -> str:
    return f"{number // 10000}.{number // 100 % 100}.{number % 100}"


def test_the_required_version_is_the_package_version() -> None:
    assert keychainkit.__version__.startswith(f"{_library.REQUIRED_MAJOR}.{_library.REQUIRED_MINOR}.")


@pytest.mark.parametrize("later", [0, 1, 99, 100, 9999 - BUILT % 10000])
def test_versions_of_the_same_major_and_a_later_minor_fit(later: int) -> None:
    assert _library.version_problem(BUILT + later) is None


@pytest.mark.parametrize("number", [0, BUILT - 100, BUILT - 1, BUILT + 10000, BUILT + 10100])
def test_other_versions_do_not_fit(number: int) -> None:
    problem = _library.version_problem(number)
    assert problem is not None and f"its version is {shown(number)}" in problem
    assert f"needs {_library.REQUIRED_MAJOR}.x with x >= {_library.REQUIRED_MINOR}" in problem


def test_the_loaded_library_reports_its_version() -> None:
    number = _ffi.kk_version_number()
    assert keychainkit.library_version() == shown(number)
    assert _library.version_problem(number) is None


def test_every_function_of_the_header_is_declared() -> None:
    header = Path(__file__).resolve().parents[3] / "include" / "keychainkit.h"
    declared = set(_ffi._PROTOTYPES)
    exported = {line.split("(")[0].split()[-1].lstrip("*") for line in header.read_text().splitlines() if line.startswith("KK_API ")}
    assert exported == declared
