# SPDX-License-Identifier: MIT
"""accounts() and iteration: what kk_list returns, read once and always freed.
What a listing holds is asserted by IntegrationTests/c/test_list.c."""

from __future__ import annotations

from typing import Any, List

import pytest

from keychainkit import InvalidArgument, Keychain
from keychainkit import _ffi


def test_accounts_default_to_the_keychains_service(kc: Keychain, service: str) -> None:
    kc.update(b="2", a="1")
    assert kc.accounts() == ["a", "b"]
    assert kc.accounts(service=service) == ["a", "b"]
    assert kc.accounts() == list(kc)


@pytest.mark.parametrize(
    "bad_service,reason",
    [("with\x00nul", "NUL"), ("lone \udc80", "surrogate"), (0, "must be a str"), (b"svc", "must be a str")],
    ids=repr,
)
def test_a_bad_service_is_an_invalid_argument(kc: Keychain, bad_service: Any, reason: str) -> None:
    with pytest.raises(InvalidArgument, match=reason):
        kc.accounts(bad_service)


@pytest.fixture
def list_frees(monkeypatch: pytest.MonkeyPatch) -> List[bool]:
    """For each kk_list_free call during the test: whether it got a list (not NULL)."""
    freed: List[bool] = []
    real = _ffi.kk_list_free

    def spy(accounts: Any) -> None:
        freed.append(bool(accounts))
        real(accounts)

    monkeypatch.setattr(_ffi, "kk_list_free", spy)
    return freed


def test_every_list_is_freed_once_even_empty(kc: Keychain, list_frees: List[bool]) -> None:
    assert kc.accounts() == []
    assert list_frees == [True]
    kc["a"] = "x"
    assert [account for account in kc] == ["a"]
    assert list_frees == [True, True]
    assert len(kc) == 1
    assert list_frees == [True, True, True]


def test_a_failed_listing_frees_nothing_and_keeps_the_librarys_message(kc: Keychain, list_frees: List[bool]) -> None:
    with pytest.raises(InvalidArgument, match="the service is empty") as caught:
        kc.accounts("")  # rejected by the library itself
    assert "service ''" in str(caught.value)
    assert list_frees == [False]  # kk_list left NULL, freed all the same


def test_listing_reads_no_value(kc: Keychain, monkeypatch: pytest.MonkeyPatch) -> None:
    kc.update(a="1", b="2")

    def forbidden(*arguments: Any) -> int:
        raise AssertionError("kk_get called while listing")

    monkeypatch.setattr(_ffi, "kk_get", forbidden)
    assert list(kc) == ["a", "b"]
    assert len(kc) == 2
    assert kc.accounts() == ["a", "b"]
    assert list(kc.keys()) == ["a", "b"]
