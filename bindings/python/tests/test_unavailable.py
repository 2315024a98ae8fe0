# SPDX-License-Identifier: MIT
"""No Secret Service reachable: ServiceUnavailable, at once, from every call."""

from __future__ import annotations

import os
import time
from typing import Callable, Iterator, List

import pytest

from keychainkit import Keychain, ServiceUnavailable

CALLS: List[Callable[[Keychain], object]] = [
    lambda kc: kc["token"],
    lambda kc: "token" in kc,
    lambda kc: kc.get("token", "default"),
    lambda kc: kc.value("token"),
    lambda kc: kc.value_bytes("token"),
    lambda kc: kc.__setitem__("token", "x"),
    lambda kc: kc.remove_value("token"),
    lambda kc: kc.__delitem__("token"),
    lambda kc: list(kc),
    lambda kc: len(kc),
    lambda kc: kc.accounts(),
    lambda kc: kc == {},
    lambda kc: kc.clear(),
]


@pytest.fixture
def unreachable(secret_service: None, service: str) -> Iterator[Keychain]:
    """A Secret Service keychain whose first connection finds no bus.

    The library reads DBUS_SESSION_BUS_ADDRESS when a handle first
    connects, so the variable is set for the first call only.
    """
    saved = os.environ.get("DBUS_SESSION_BUS_ADDRESS")
    os.environ["DBUS_SESSION_BUS_ADDRESS"] = "unix:path=/nonexistent/bus"
    try:
        with Keychain(service=service) as kc:
            with pytest.raises(ServiceUnavailable):
                kc.value("first-connection")
            yield kc
    finally:
        if saved is None:
            del os.environ["DBUS_SESSION_BUS_ADDRESS"]
        else:
            os.environ["DBUS_SESSION_BUS_ADDRESS"] = saved


@pytest.mark.parametrize("call", CALLS, ids=range(len(CALLS)))
def test_every_call_raises_service_unavailable_quickly(unreachable: Keychain, call: Callable[[Keychain], object]) -> None:
    started = time.monotonic()
    with pytest.raises(ServiceUnavailable) as caught:
        call(unreachable)
    assert time.monotonic() - started < 1.0
    assert not isinstance(caught.value, KeyError)
    assert "Secret Service" in str(caught.value) or "bus" in str(caught.value)


def test_a_failed_write_still_notifies_with_the_error(unreachable: Keychain) -> None:
    events = []
    unreachable.observe("token", events.append)
    with pytest.raises(ServiceUnavailable):
        unreachable["token"] = "x"
    assert [(event.kind, type(event.error)) for event in events] == [("set", ServiceUnavailable)]
    assert not events[0].ok
