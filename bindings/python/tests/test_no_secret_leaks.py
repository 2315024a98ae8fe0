# SPDX-License-Identifier: MIT
"""A secret never appears in a repr, a str, an exception's text or a log."""

from __future__ import annotations

import logging
import traceback
from typing import List

import pytest

from keychainkit import MAX_VALUE_SIZE, ChangeEvent, InvalidArgument, ItemNotFound, Keychain

MARKER = "SECRET-MARKER-7f3a9c"


def full_text(error: BaseException) -> str:
    """The exception's str, repr and whole printed traceback chain."""
    return str(error) + repr(error) + "".join(traceback.format_exception(type(error), error, error.__traceback__))


def test_reprs_of_a_keychain_and_its_events_hold_no_value(kc: Keychain, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    events: List[ChangeEvent] = []
    observation = kc.observe("token", events.append)
    kc["token"] = MARKER
    assert kc["token"] == MARKER
    kc.remove_value("token")
    texts = [repr(kc), str(kc), repr(observation), str(observation)] + [repr(e) + str(e) for e in events]
    assert events and not any(MARKER in text for text in texts)
    assert MARKER not in caplog.text


def test_rejected_values_are_not_quoted_nor_chained(kc: Keychain) -> None:
    for bad in (MARKER + "\udc80", (MARKER * 8).encode() * (MAX_VALUE_SIZE // 100)):
        with pytest.raises(InvalidArgument) as caught:
            kc["token"] = bad
        assert MARKER not in full_text(caught.value)
        assert caught.value.__context__ is None and caught.value.__cause__ is None


def test_a_value_that_is_not_utf8_is_not_quoted_when_it_reads_as_absent(kc: Keychain) -> None:
    kc["token"] = MARKER.encode() + b"\xff"
    with pytest.raises(ItemNotFound) as caught:
        kc["token"]
    assert MARKER not in full_text(caught.value)
    assert caught.value.__context__ is None

