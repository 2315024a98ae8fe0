# SPDX-License-Identifier: MIT
"""An exception raised by a callback reaches sys.unraisablehook, not the writer."""

from __future__ import annotations

import sys
from typing import Any, List

import pytest

from keychainkit import ChangeEvent, Keychain


class Boom(Exception):
    pass


def test_a_raising_callback_is_reported_and_the_write_succeeds(kc: Keychain, monkeypatch: pytest.MonkeyPatch) -> None:
    reported: List[Any] = []
    monkeypatch.setattr(sys, "unraisablehook", lambda args: reported.append((args.exc_type, args.exc_value)))
    raised = Boom("from the callback")
    after: List[ChangeEvent] = []

    def fail(event: ChangeEvent) -> None:
        raise raised

    kc.observe("a", fail)
    kc.observe("a", after.append)
    kc["a"] = "x"
    kc["a"] = "y"
    assert kc["a"] == "y"
    assert reported == [(Boom, raised), (Boom, raised)]
    assert len(after) == 2  # the next observer still ran, both times
