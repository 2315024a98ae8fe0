# SPDX-License-Identifier: MIT
"""Who keeps a callback alive: the registration does, until cancel or close.

Dropping the Observation handle and the callback's owner does not
unregister the callback: it keeps firing (and its owner stays alive) until
Observation.cancel() or Keychain.close(), like atexit or signal handlers.
"""

from __future__ import annotations

import gc
import weakref
from typing import List

from keychainkit import ChangeEvent, Keychain, Observation


class Owner:
    def __init__(self, sink: List[str]) -> None:
        self.sink = sink

    def on_change(self, event: ChangeEvent) -> None:
        self.sink.append(event.kind)


def test_dropping_the_handle_and_owner_keeps_the_callback_firing(kc: Keychain) -> None:
    sink: List[str] = []
    owner = Owner(sink)
    observation = kc.observe("a", owner.on_change)
    alive = weakref.ref(owner)
    del observation, owner
    gc.collect()
    kc["a"] = "x"
    kc.remove_value("a")
    assert sink == ["set", "remove"]
    assert alive() is not None


def test_cancel_releases_the_owner(kc: Keychain) -> None:
    sink: List[str] = []
    owner = Owner(sink)
    observation: Observation = kc.observe("a", owner.on_change)
    alive = weakref.ref(owner)
    del owner
    observation.cancel()
    gc.collect()
    assert alive() is None
    kc["a"] = "x"
    assert sink == []


def test_a_failed_registration_keeps_nothing(kc: Keychain) -> None:
    owner = Owner([])
    alive = weakref.ref(owner)
    try:
        kc.observe("a\0b", owner.on_change)  # an account with a NUL is rejected
    except ValueError:
        pass
    else:
        raise AssertionError("an account with a NUL was accepted")
    del owner
    gc.collect()
    assert alive() is None
