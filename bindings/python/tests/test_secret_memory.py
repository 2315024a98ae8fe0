# SPDX-License-Identifier: MIT
"""Every value kk_get returns is released with kk_secret_free, exactly once;
the secrets the binding copies itself (a file's master secret, an unlock
password) reach the library from memory excluded from core dumps."""

from __future__ import annotations

import ctypes
from typing import Any, List, Optional, Tuple

import pytest

from keychainkit import InvalidArgument, Keychain
from keychainkit import _ffi
from keychainkit._status import Status
from support import ANY_SIZE, mapping_flags


@pytest.fixture
def frees(monkeypatch: pytest.MonkeyPatch) -> List[Any]:
    """The pointers passed to kk_secret_free during the test."""
    freed: List[Any] = []
    real = _ffi.kk_secret_free

    def spy(pointer: Any) -> None:
        freed.append(pointer.value)
        real(pointer)

    monkeypatch.setattr(_ffi, "kk_secret_free", spy)
    return freed


def test_a_found_value_is_freed_once(kc: Keychain, frees: List[Any]) -> None:
    kc["a"] = "x\x00y"
    assert kc.value_bytes("a") == b"x\x00y"
    assert len(frees) == 1 and frees[0]


@pytest.mark.parametrize("backend", ANY_SIZE, indirect=True)
def test_an_empty_value_is_freed_once(kc: Keychain, frees: List[Any]) -> None:
    kc["a"] = b""
    assert kc.value_bytes("a") == b""
    assert len(frees) == 1 and frees[0]


def test_failures_leave_nothing_to_free(kc: Keychain, frees: List[Any]) -> None:
    assert kc.value_bytes("absent") is None
    with pytest.raises(InvalidArgument):
        kc.value_bytes("a", service="")
    assert frees == [None, None]  # kk_get set the out-parameter to NULL



def test_an_unlock_password_passes_through_memory_out_of_core_dumps(
        kc: Keychain, monkeypatch: pytest.MonkeyPatch) -> None:
    """(The master secret's copy: test_file_store.py.)"""
    seen: List[Tuple[Optional[str], bytes]] = []

    def spy(handle: Any, name: Any, buffer: Any, length: int) -> int:
        seen.append((mapping_flags(ctypes.addressof(buffer)), ctypes.string_at(buffer, length)))
        return int(Status.EINVAL)

    monkeypatch.setattr(_ffi, "kk_unlock", spy)
    with pytest.raises(InvalidArgument):
        kc.unlock("a password")
    [(flags, passed)] = seen
    assert flags is not None and " dd " in flags, flags
    assert passed == b"a password"
