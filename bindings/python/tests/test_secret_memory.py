# SPDX-License-Identifier: MIT
"""kk_get's values are freed once each; the binding's own secret copies are kept out of core dumps."""

from __future__ import annotations

import ctypes
from typing import Any, List, Tuple

import pytest

from keychainkit import InvalidArgument, Keychain, Status
from keychainkit import _ffi
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


def test_an_unlock_password_passes_through_memory_out_of_core_dumps(kc: Keychain, monkeypatch: Any) -> None:
    seen: List[Tuple[bool, bytes]] = []  # (the master secret's copy: test_file_store.py)
    monkeypatch.setattr(_ffi, "kk_unlock", lambda _kc, _name, buffer, length: seen.append(
        (" dd " in (mapping_flags(ctypes.addressof(buffer)) or ""), ctypes.string_at(buffer, length))) or Status.EINVAL)
    pytest.raises(InvalidArgument, kc.unlock, "a password")
    assert seen == [(True, b"a password")]  # excluded from core dumps
