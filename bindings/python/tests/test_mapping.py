"""Keychain as a dict of account -> str within its default service."""

from __future__ import annotations

import collections.abc

import pytest

from keychainkit import InvalidArgument, ItemNotFound, Keychain


def test_set_then_get_returns_the_text(kc: Keychain) -> None:
    kc["token"] = "abc"
    assert kc["token"] == "abc"
    assert isinstance(kc["token"], str)


def test_set_replaces_the_value(kc: Keychain) -> None:
    kc["token"] = "first"
    kc["token"] = "second"
    assert kc["token"] == "second"


def test_absent_key_raises_item_not_found_which_is_a_key_error(kc: Keychain) -> None:
    with pytest.raises(KeyError) as caught:
        kc["absent"]
    assert isinstance(caught.value, ItemNotFound)
    assert "'absent'" in str(caught.value)


def test_in_tells_present_from_absent(kc: Keychain) -> None:
    kc["present"] = "x"
    assert "present" in kc
    assert "absent" not in kc


def test_get_returns_the_value_or_the_default(kc: Keychain) -> None:
    kc["present"] = "x"
    assert kc.get("present") == "x"
    assert kc.get("present", "default") == "x"
    assert kc.get("absent") is None
    assert kc.get("absent", "default") == "default"


def test_get_returns_an_empty_value_not_the_default(kc: Keychain) -> None:
    kc["empty"] = ""
    assert kc.get("empty", "default") == ""
    assert "empty" in kc


def test_del_removes_the_item(kc: Keychain) -> None:
    kc["token"] = "x"
    del kc["token"]
    assert "token" not in kc
    assert kc.value_bytes("token") is None


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


def test_iteration_raises_type_error_explaining_why(kc: Keychain) -> None:
    with pytest.raises(TypeError, match="no way to list items"):
        iter(kc)
    with pytest.raises(TypeError, match="no way to list items"):
        list(kc)


def test_len_is_not_defined_and_truthiness_does_not_need_it(kc: Keychain) -> None:
    with pytest.raises(TypeError):
        len(kc)  # type: ignore[arg-type]
    assert bool(kc) is True


def test_it_does_not_claim_to_be_a_mapping(kc: Keychain) -> None:
    assert not isinstance(kc, collections.abc.Mapping)
    assert not isinstance(kc, collections.abc.MutableMapping)
    assert not isinstance(kc, collections.abc.Sized)


@pytest.mark.parametrize("account", [0, None, b"token", ("a",)])
def test_a_non_str_key_is_an_invalid_argument(kc: Keychain, account: object) -> None:
    with pytest.raises(InvalidArgument, match="must be a str"):
        kc[account]  # type: ignore[index]
    with pytest.raises(InvalidArgument):
        account in kc  # noqa: B015
    with pytest.raises(InvalidArgument):
        kc[account] = "x"  # type: ignore[index]
