# SPDX-License-Identifier: MIT
"""str and bytes values: encodings, NUL bytes, the empty value, and the str view.
Sizes and their limit: IntegrationTests/c/test_items.c and test_arguments.c."""

from __future__ import annotations

from typing import Union

import pytest

from keychainkit import InvalidArgument, ItemNotFound, Keychain
from support import ANY_SIZE

TEXTS = ["abc", "ünïcödé ✓ 鍵 🔑", "nul\x00inside"]


@pytest.mark.parametrize("text", TEXTS, ids=repr)
def test_text_round_trips_and_is_stored_as_utf8(kc: Keychain, text: str) -> None:
    kc["text"] = text
    assert kc["text"] == text
    assert kc.value("text") == text
    assert kc.value_bytes("text") == text.encode("utf-8")


BLOBS = [b"\x00", b"a\x00b\x00"]


@pytest.mark.parametrize("blob", BLOBS, ids=repr)
def test_bytes_round_trip_as_is(kc: Keychain, blob: bytes) -> None:
    kc["blob"] = blob
    assert kc.value_bytes("blob") == blob


@pytest.mark.parametrize("backend", ANY_SIZE, indirect=True)
@pytest.mark.parametrize("empty", ["", b""], ids=repr)
def test_an_empty_value_round_trips(kc: Keychain, empty: Union[str, bytes]) -> None:
    kc["empty"] = empty
    assert kc["empty"] == ""
    assert kc.value_bytes("empty") == b""


@pytest.mark.parametrize("kind", [bytearray, memoryview])
def test_bytes_like_values_are_stored_as_bytes(kc: Keychain, kind: type) -> None:
    kc["blob"] = kind(b"\x00ab")
    assert kc.value_bytes("blob") == b"\x00ab"


def test_a_value_that_is_not_utf8_reads_as_absent_through_the_str_api(kc: Keychain) -> None:
    kc["binary"] = b"\xff\xfe"
    assert kc.value("binary") is None
    assert "binary" in kc  # the item exists (kk_exists): only its text reads as absent
    assert kc.get("binary", "default") == "default"
    with pytest.raises(ItemNotFound, match="not valid UTF-8"):
        kc["binary"]
    assert kc.value_bytes("binary") == b"\xff\xfe"


@pytest.mark.parametrize("value", ["lone \udc80 surrogate", "\ud800"], ids=repr)
def test_a_text_value_with_a_lone_surrogate_is_an_invalid_argument(kc: Keychain, value: str) -> None:
    with pytest.raises(InvalidArgument, match="surrogate"):
        kc["text"] = value
    assert kc.value_bytes("text") is None


@pytest.mark.parametrize("value", [None, 42, 1.5, ["a"], object()], ids=repr)
def test_a_value_that_is_neither_text_nor_bytes_is_an_invalid_argument(kc: Keychain, value: object) -> None:
    with pytest.raises(InvalidArgument, match="str or bytes-like"):
        kc["x"] = value  # type: ignore[assignment]
    with pytest.raises(InvalidArgument):
        kc.update_value(value, "x")  # type: ignore[arg-type]


def test_value_is_none_when_absent(kc: Keychain) -> None:
    assert kc.value("absent") is None
    assert kc.value_bytes("absent") is None
