# SPDX-License-Identifier: MIT
"""Keychain as a MutableMapping of account -> str within its default service.
What the library stores and lists: IntegrationTests/c/test_items.c, test_list.c."""

from __future__ import annotations

import collections.abc
from typing import Callable, List

import pytest

from keychainkit import InvalidArgument, ItemNotFound, Keychain
from support import ANY_SIZE, unique_service


def test_set_then_get_returns_the_text(kc: Keychain) -> None:
    kc["token"] = "abc"
    assert kc["token"] == "abc"
    assert isinstance(kc["token"], str)


def test_absent_key_raises_item_not_found_which_is_a_key_error(kc: Keychain) -> None:
    with pytest.raises(KeyError) as caught:
        kc["absent"]
    assert isinstance(caught.value, ItemNotFound)
    assert "'absent'" in str(caught.value)


def test_get_returns_the_value_or_the_default(kc: Keychain) -> None:
    kc["present"] = "x"
    assert kc.get("present") == "x"
    assert kc.get("present", "default") == "x"
    assert kc.get("absent") is None
    assert kc.get("absent", "default") == "default"


@pytest.mark.parametrize("backend", ANY_SIZE, indirect=True)
def test_get_returns_an_empty_value_not_the_default(kc: Keychain) -> None:
    kc["empty"] = ""
    assert kc.get("empty", "default") == ""
    assert "empty" in kc


def test_del_of_an_absent_key_raises_key_error(kc: Keychain) -> None:
    with pytest.raises(ItemNotFound):
        del kc["absent"]


def test_del_removes_a_value_that_is_not_text(kc: Keychain) -> None:
    kc["binary"] = b"\xff\xfe"
    del kc["binary"]
    assert kc.value_bytes("binary") is None


def test_pop_returns_and_removes(kc: Keychain) -> None:
    kc["token"] = "x"
    assert kc.pop("token") == "x"
    assert "token" not in kc


def test_pop_of_an_absent_key_raises_or_returns_the_default(kc: Keychain) -> None:
    assert kc.pop("absent", "default") == "default"
    with pytest.raises(ItemNotFound):
        kc.pop("absent")


def test_update_takes_a_mapping_pairs_and_keywords(kc: Keychain) -> None:
    kc.update({"a": "1"}, b="2")
    kc.update([("c", "3"), ("a", "4")])
    assert [kc["a"], kc["b"], kc["c"]] == ["4", "2", "3"]


def test_update_is_positional_only_like_dicts_and_copies_another_keychain(kc: Keychain) -> None:
    kc.update(other="5")  # a keyword is an account, even "other"
    with Keychain.in_memory(service="source") as source:
        source.update(a="1", b="2")
        kc.update(source)
    assert dict(kc) == {"a": "1", "b": "2", "other": "5"}


def test_it_is_a_mutable_mapping(kc: Keychain) -> None:
    assert isinstance(kc, collections.abc.MutableMapping)
    assert isinstance(kc, collections.abc.Mapping)
    assert isinstance(kc, collections.abc.Sized)


def test_an_empty_keychain_lists_nothing_and_is_still_true(kc: Keychain) -> None:
    assert list(kc) == []
    assert len(kc) == 0
    assert dict(kc) == {}
    assert kc == {}
    assert bool(kc) is True  # a handle: truth never queries the keychain


def test_iteration_len_and_keys_list_the_accounts_sorted(kc: Keychain) -> None:
    kc.update(b="2", a="1", c="3")
    assert list(kc) == ["a", "b", "c"]
    assert len(kc) == 3
    assert list(kc.keys()) == ["a", "b", "c"]
    assert kc.keys() == {"a", "b", "c"}
    assert "b" in kc.keys() and "d" not in kc.keys()
    assert sorted(kc) == list(kc)


def test_items_values_dict_and_equality_read_every_value(kc: Keychain) -> None:
    kc.update({"a": "1", "b": "2"})
    assert list(kc.items()) == [("a", "1"), ("b", "2")]
    assert list(kc.values()) == ["1", "2"]
    assert dict(kc) == {"a": "1", "b": "2"}
    assert ("a", "1") in kc.items() and ("a", "2") not in kc.items()
    assert kc == {"a": "1", "b": "2"}
    assert {"b": "2", "a": "1"} == kc
    assert kc != {"a": "1"}
    assert kc != {"a": "1", "b": "other"}
    assert kc != {"a": "1", "b": "2", "c": "3"}
    pairs: object = [("a", "1"), ("b", "2")]
    assert kc != pairs  # not a mapping


def test_equal_keychains_compare_by_content_and_are_unhashable(kc: Keychain) -> None:
    with Keychain.in_memory(service="other") as other:
        other["a"] = "1"
        assert kc != other
        kc["a"] = "1"
        assert kc == other
    with pytest.raises(TypeError, match="unhashable"):
        hash(kc)


def test_iteration_is_over_a_snapshot(kc: Keychain) -> None:
    kc.update(a="1", b="2")
    seen = []
    for account in kc:  # the keychain may change during iteration
        seen.append(account)
        del kc[account]
        kc["new-" + account] = "x"
    assert seen == ["a", "b"]
    assert list(kc) == ["new-a", "new-b"]


def test_setdefault_popitem_and_clear(kc: Keychain, service: str) -> None:
    assert kc.setdefault("a", "1") == "1"
    assert kc.setdefault("a", "2") == "1"
    kc["b"] = b"\x00\x01"  # not text, removed by clear() like any other
    other = unique_service()
    kc.update_value("x", "elsewhere", service=other)
    try:
        assert kc.popitem() == ("a", "1")
        assert list(kc) == ["b"]
        kc.clear()
        assert list(kc) == [] and len(kc) == 0
        with pytest.raises(ItemNotFound, match="no item in service"):
            kc.popitem()
        assert kc.value("elsewhere", service=other) == "x"  # another service is untouched
    finally:
        kc.remove_value("elsewhere", service=other)


def test_a_value_that_is_not_utf8_is_listed_but_reading_it_as_text_raises_key_error(kc: Keychain) -> None:
    # The account exists, so iter(), len() and keys() list it; through the
    # str API its value reads as absent, so whatever reads every value
    # (values(), items(), dict(kc), ==, popitem()) raises ItemNotFound.
    kc["binary"] = b"\xff\xfe"
    kc["text"] = "t"
    assert list(kc) == ["binary", "text"]
    assert len(kc) == 2
    assert "binary" in kc  # the item exists, as list(kc) says
    readers: List[Callable[[], object]] = [
        lambda: list(kc.values()),
        lambda: list(kc.items()),
        lambda: dict(kc),
        lambda: kc == {"text": "t"},
        lambda: kc.popitem(),
    ]
    for read in readers:
        with pytest.raises(ItemNotFound, match="not valid UTF-8") as caught:
            read()
        assert isinstance(caught.value, KeyError)
    assert kc.value_bytes("binary") == b"\xff\xfe"  # popitem() removed nothing
    assert {account: kc.value_bytes(account) for account in kc} == {"binary": b"\xff\xfe", "text": b"t"}
    kc.clear()
    assert list(kc) == []


@pytest.mark.parametrize("account", [0, None, b"token", ("a",)])
def test_a_non_str_key_is_an_invalid_argument(kc: Keychain, account: object) -> None:
    with pytest.raises(InvalidArgument, match="must be a str"):
        kc[account]  # type: ignore[index]
    with pytest.raises(InvalidArgument):
        account in kc  # noqa: B015
    with pytest.raises(InvalidArgument):
        kc[account] = "x"  # type: ignore[index]


def test_in_and_del_never_read_the_secret(kc: Keychain, monkeypatch: pytest.MonkeyPatch) -> None:
    # Presence is asked of kk_exists: no plaintext copy in an unwipeable bytes.
    from keychainkit import _ffi

    kc["token"] = "secret"

    def no_reads(*_: object) -> int:
        raise AssertionError("kk_get was called to test presence")

    monkeypatch.setattr(_ffi, "kk_get", no_reads)
    assert "token" in kc and "absent" not in kc
    del kc["token"]
    assert "token" not in kc
    with pytest.raises(ItemNotFound):
        del kc["token"]
