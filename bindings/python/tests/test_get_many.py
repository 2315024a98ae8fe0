# SPDX-License-Identifier: MIT
"""Batched reads (issue 26): get_many(), get_many_bytes(), and items() and
values() reading every value in one kk_get_many.

What kk_get_many answers for each entry (the status kk_get would return) is
asserted by the C ABI suite; here, that the binding gives exactly what
value()/value_bytes() would give account by account, frees every value,
raises what they would raise, and that items() and values() make two calls
of the library (one listing, one batched read) while dict(kc) reads each
value afresh with kk_get (see Keychain.keys()).
"""

from __future__ import annotations

import traceback
from collections import Counter
from typing import Any, Dict, List

import pytest

from keychainkit import InvalidArgument, ItemNotFound, Keychain, Status
from keychainkit import _ffi
from support import unique_service

MARKER = "SECRET-MARKER-many-9d41"

STORED: Dict[str, bytes] = {
    "text": "ünïcödé ✓ 鍵 🔑".encode("utf-8"),
    "nul-text": b"nul\x00inside\x00",
    "not-utf8": b"\xff\xfe\x00\x80",
    "nul-first": b"\x00tail",
}
"""Values every backend stores (1 to 32767 bytes), NUL and non-UTF-8 included."""

COUNTED = ("kk_get", "kk_get_many", "kk_list", "kk_exists", "kk_set", "kk_remove")


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> "Counter[str]":
    """How many times each function of COUNTED is called during the test
    (through wrappers around the real ones); "many-counts" adds, for each
    kk_get_many, the number of accounts it was given."""
    counts: "Counter[str]" = Counter()
    for name in COUNTED:
        real = getattr(_ffi, name)

        def counting(*arguments: Any, _real: Any = real, _name: str = name) -> Any:
            counts[_name] += 1
            if _name == "kk_get_many":
                counts[f"many-count-{arguments[3]}"] += 1
            return _real(*arguments)

        monkeypatch.setattr(_ffi, name, counting)
    return counts


def reads(counts: "Counter[str]") -> Dict[str, int]:
    """The calls of the library made, without the zero counts."""
    return {name: counts[name] for name in COUNTED if counts[name]}


@pytest.fixture
def stored(kc: Keychain) -> Keychain:
    """``kc`` holding STORED."""
    for account, value in STORED.items():
        kc[account] = value
    return kc


def full_text(error: BaseException) -> str:
    """The exception's str, repr and whole printed traceback chain."""
    return str(error) + repr(error) + "".join(traceback.format_exception(type(error), error, error.__traceback__))


# -- get_many() and get_many_bytes() -----------------------------------------


def test_each_account_reads_as_value_and_value_bytes_would(stored: Keychain, calls: "Counter[str]") -> None:
    accounts = ["text", "absent", "nul-text", "not-utf8", "nul-first", ""]
    as_bytes = stored.get_many_bytes(accounts)
    as_text = stored.get_many(accounts)
    assert reads(calls) == {"kk_get_many": 2}
    assert list(as_bytes) == accounts and list(as_text) == accounts  # in the order asked
    assert as_bytes == {
        "text": STORED["text"], "absent": None, "nul-text": b"nul\x00inside\x00",
        "not-utf8": b"\xff\xfe\x00\x80", "nul-first": b"\x00tail", "": None,
    }
    assert as_text == {
        "text": STORED["text"].decode(), "absent": None, "nul-text": "nul\x00inside\x00",
        "not-utf8": None, "nul-first": "\x00tail", "": None,
    }
    assert as_bytes == {account: stored.value_bytes(account) for account in accounts}
    assert as_text == {account: stored.value(account) for account in accounts}


def test_an_account_given_twice_is_read_once_and_held_once(stored: Keychain, calls: "Counter[str]") -> None:
    assert stored.get_many(["text", "absent", "text", "absent"]) == {"text": STORED["text"].decode(), "absent": None}
    assert list(stored.get_many_bytes(["nul-first", "text", "nul-first"])) == ["nul-first", "text"]
    assert reads(calls) == {"kk_get_many": 2}
    assert calls["many-count-2"] == 2  # each account passed once


def test_any_iterable_of_str_is_taken(stored: Keychain) -> None:
    expected = {"nul-first": "\x00tail", "text": STORED["text"].decode()}
    assert stored.get_many(("nul-first", "text")) == expected
    assert stored.get_many(account for account in ["nul-first", "text"]) == expected
    assert stored.get_many({"nul-first": 1, "text": 2}.keys()) == expected
    everything = stored.get_many_bytes(stored)  # the keychain iterates its accounts
    assert everything == STORED


def test_no_account_returns_an_empty_dict_without_calling_the_library(kc: Keychain, calls: "Counter[str]") -> None:
    assert kc.get_many([]) == {}
    assert kc.get_many_bytes(()) == {}
    assert kc.get_many(iter([]), service=unique_service()) == {}
    assert reads(calls) == {}


@pytest.mark.parametrize(
    "bad", [0, None, b"token", ("a",), "with\x00nul", "lone \udc80"], ids=repr
)
def test_a_bad_account_raises_what_value_raises_before_any_call(
    stored: Keychain, calls: "Counter[str]", bad: Any
) -> None:
    with pytest.raises(InvalidArgument) as expected:
        stored.value(bad)
    for read in (stored.get_many, stored.get_many_bytes):
        with pytest.raises(InvalidArgument) as caught:
            read(["text", bad, "absent"])
        assert type(caught.value) is type(expected.value)
        assert str(caught.value) == str(expected.value)
    assert reads(calls) == {}


@pytest.mark.parametrize("accounts", ["text", b"text", 7], ids=repr)
def test_accounts_must_be_an_iterable_of_str_not_a_str(kc: Keychain, calls: "Counter[str]", accounts: Any) -> None:
    with pytest.raises(InvalidArgument, match="accounts must be an iterable of str"):
        kc.get_many(accounts)
    assert reads(calls) == {}


@pytest.mark.parametrize("bad_service", ["with\x00nul", "lone \udc80", 0, b"svc"], ids=repr)
def test_a_bad_service_is_refused_before_any_call(kc: Keychain, calls: "Counter[str]", bad_service: Any) -> None:
    for accounts in (["a", "b"], []):
        with pytest.raises(InvalidArgument, match="service"):
            kc.get_many(accounts, service=bad_service)
    assert reads(calls) == {}


def test_a_service_the_library_refuses_fails_the_whole_batch(kc: Keychain, calls: "Counter[str]") -> None:
    with pytest.raises(InvalidArgument) as expected:
        kc.value_bytes("a", service="")
    with pytest.raises(InvalidArgument) as caught:
        kc.get_many_bytes(["a", "b"], service="")
    assert calls["kk_get_many"] == 1
    assert caught.value.status == expected.value.status == Status.EINVAL
    assert "the service is empty" in str(caught.value) and "service ''" in str(caught.value)


# -- every value freed --------------------------------------------------------


@pytest.fixture
def frees(monkeypatch: pytest.MonkeyPatch) -> List[int]:
    """The addresses kk_secret_free is given during the test (NULL too)."""
    freed: List[int] = []
    real = _ffi.kk_secret_free

    def spy(value: Any) -> None:
        freed.append(int(value or 0))
        real(value)

    monkeypatch.setattr(_ffi, "kk_secret_free", spy)
    return freed


def test_every_value_read_is_freed_once(stored: Keychain, frees: List[int]) -> None:
    stored.get_many_bytes(["text", "absent", "nul-text", "text", "not-utf8"])
    assert len(frees) == 3 and 0 not in frees and len(set(frees)) == 3


def test_every_value_is_freed_when_copying_one_fails(
    stored: Keychain, frees: List[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    real = _ffi.take_secret
    copied: List[int] = []

    def fail_on_the_second(function: str, value: Any, length: int) -> bytes:
        copied.append(value)
        if len(copied) == 2:
            raise KeyboardInterrupt  # the worst moment for an interruption
        return real(function, value, length)

    monkeypatch.setattr(_ffi, "take_secret", fail_on_the_second)
    with pytest.raises(KeyboardInterrupt):
        stored.get_many_bytes(["text", "nul-text", "absent", "nul-first"])
    assert len(frees) == 3 and 0 not in frees and len(set(frees)) == 3
    copied.clear()
    with pytest.raises(KeyboardInterrupt):
        dict(stored.items())
    assert len(frees) == 3 + len(STORED)


# -- items(), values(): two calls; dict(kc): one per account ------------------


def test_dict_items_and_values_equal_the_reads_account_by_account(kc: Keychain) -> None:
    texts = {"b": "2", "a": "1\x00one", "\U0001f511": "key", "c": "ünïcödé"}
    kc.update(texts)
    one_by_one = {account: kc[account] for account in kc.accounts()}
    assert one_by_one == texts
    assert dict(kc) == one_by_one and list(dict(kc)) == kc.accounts()
    assert list(kc.items()) == list(one_by_one.items())
    assert list(kc.values()) == list(one_by_one.values())
    assert {**kc} == one_by_one
    assert kc == texts and kc != {**texts, "a": "other"}


def test_items_and_values_make_one_listing_and_one_batched_read(kc: Keychain, calls: "Counter[str]") -> None:
    texts = {f"account-{index:02}": f"value {index}\x00" for index in range(20)}
    kc.update(texts)
    for reader in (
        lambda: dict(kc.items()),
        lambda: {account: text for account, text in kc.items()},
        lambda: dict(zip(kc.accounts(), [text for text in kc.values()])),  # values(): accounts() is the 1st listing
    ):
        calls.clear()
        assert reader() == texts
        assert calls["kk_get"] == 0 and calls["kk_get_many"] == 1 and calls["many-count-20"] == 1, reads(calls)
    calls.clear()
    for _ in kc.values():
        pass
    assert reads(calls) == {"kk_list": 1, "kk_get_many": 1}
    calls.clear()
    assert kc == texts
    assert reads(calls) == {"kk_list": 1, "kk_get_many": 1}
    calls.clear()
    assert list(kc.items()) == list(texts.items())
    assert reads(calls) == {"kk_list": 2, "kk_get_many": 1}  # list() also asks len(), a listing
    calls.clear()
    assert list(kc.values()) == list(texts.values())
    assert reads(calls) == {"kk_list": 2, "kk_get_many": 1}
    calls.clear()
    assert "value 3\x00" in kc.values() and "value 3" not in kc.values()
    assert reads(calls) == {"kk_list": 2, "kk_get_many": 2}


def test_dict_of_the_keychain_reads_each_account_afresh(kc: Keychain, calls: "Counter[str]") -> None:
    # dict(kc) and {**kc} iterate keys(), a listing that reads no value, then
    # ask kc[account] for each account: one kk_get each, as documented.
    texts = {f"account-{index:02}": f"value {index}\x00" for index in range(20)}
    kc.update(texts)
    calls.clear()
    assert [account for account in kc.keys()] == list(texts) and kc.keys() == set(texts)
    assert set(reads(calls)) == {"kk_list"}  # keys() reads no value
    for reader in (lambda: dict(kc), lambda: {**kc}):
        calls.clear()
        assert reader() == texts
        assert reads(calls) == {"kk_list": 1, "kk_get": 20}


def test_an_empty_service_makes_one_listing_and_no_read(kc: Keychain, calls: "Counter[str]") -> None:
    assert dict(kc) == {} and list(kc.items()) == [] and [*kc.values()] == []
    assert calls["kk_get"] == calls["kk_get_many"] == 0


def test_the_views_still_behave_as_mapping_views(stored: Keychain) -> None:
    stored["not-utf8"] = "now text"
    items, values, keys = stored.items(), stored.values(), stored.keys()
    assert len(items) == len(values) == len(keys) == len(STORED)
    assert ("text", STORED["text"].decode()) in items and ("text", "other") not in items
    assert ("absent", "x") not in items
    assert "now text" in values and "other" not in values
    assert "text" in keys and "absent" not in keys
    assert keys == set(STORED) and list(keys) == sorted(STORED, key=lambda name: name.encode())
    assert items == set(dict(stored).items())
    assert MARKER not in repr(items) + repr(values) + repr(keys)


def test_an_account_removed_after_the_listing_is_left_out_of_items_and_dict_raises(
    stored: Keychain, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The listing names an account whose item is gone when the values are read.
    del stored["not-utf8"]
    listed = sorted(list(STORED) + ["vanished"], key=lambda name: name.encode())
    listed.remove("not-utf8")
    monkeypatch.setattr(stored, "accounts", lambda service=None: list(listed))
    expected = {account: stored[account] for account in listed if account != "vanished"}
    assert dict(stored.items()) == expected
    assert list(stored.values()) == list(expected.values())
    with pytest.raises(ItemNotFound, match="'vanished'"):
        dict(stored)  # dict() asks kc[account] for every account keys() listed


def test_a_value_that_is_not_utf8_still_raises_item_not_found_from_the_readers(stored: Keychain) -> None:
    # As documented (the class, README): whatever reads every value as text
    # raises when it reaches one; get_many() reads it as None, as value() does.
    for read in (lambda: dict(stored), lambda: list(stored.items()), lambda: list(stored.values())):
        with pytest.raises(ItemNotFound, match="'not-utf8'.*not valid UTF-8") as caught:
            read()
        assert caught.value.__context__ is None
    assert stored.get_many(["not-utf8"]) == {"not-utf8": None}


# -- no secret quoted ---------------------------------------------------------


def test_no_secret_in_reprs_of_results_views_or_errors(stored: Keychain) -> None:
    stored["marked"] = MARKER.encode() + b"\xff"
    texts = [repr(stored), str(stored), repr(stored.items()), repr(stored.values()), repr(stored.keys())]
    for read in (lambda: dict(stored), lambda: list(stored.items()), lambda: list(stored.values())):
        with pytest.raises(ItemNotFound) as caught:
            read()
        assert caught.value.__context__ is None
        texts.append(full_text(caught.value))
    assert not any(MARKER in text for text in texts)
    assert stored.get_many(["marked"]) == {"marked": None}
