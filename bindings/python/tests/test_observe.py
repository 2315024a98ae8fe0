# SPDX-License-Identifier: MIT
"""observe() through the binding: events as ChangeEvent, the service
argument, the Observation handle (cancel, with), callbacks that use the
keychain, and the binding's own argument checks.

Which attempts notify whom (equal values, absent removals, other keys,
every observer of a key, rejected arguments, re-entrant callbacks) is the
library's, asserted by IntegrationTests/c/test_observers.c."""

from __future__ import annotations

from typing import List

import pytest

from keychainkit import ChangeEvent, InvalidArgument, Keychain, Observation, Status


def test_set_and_remove_notify_with_the_key_and_status(kc: Keychain, service: str) -> None:
    events: List[ChangeEvent] = []
    kc.observe("a", events.append)
    kc["a"] = "x"
    kc.remove_value("a")
    assert events == [ChangeEvent("set", service, "a", Status.OK), ChangeEvent("remove", service, "a", Status.OK)]
    assert all(event.ok and event.error is None for event in events)


def test_del_notifies_a_removal_only_when_something_was_there(kc: Keychain) -> None:
    events: List[ChangeEvent] = []
    kc.observe("a", events.append)
    with pytest.raises(KeyError):
        del kc["a"]
    kc["a"] = "x"
    del kc["a"]
    assert [event.kind for event in events] == ["set", "remove"]


def test_an_observer_of_another_service(kc: Keychain) -> None:
    other = f"{kc.service}-other"
    events: List[ChangeEvent] = []
    observation = kc.observe("a", events.append, service=other)
    kc["a"] = "x"
    kc.update_value("y", "a", service=other)
    assert [(event.service, event.account) for event in events] == [(other, "a")]
    assert observation.service == other


def test_cancel_stops_notifications_and_is_idempotent(kc: Keychain) -> None:
    events: List[ChangeEvent] = []
    observation = kc.observe("a", events.append)
    assert observation.active
    kc["a"] = "x"
    observation.cancel()
    observation.cancel()
    assert not observation.active
    kc["a"] = "y"
    assert len(events) == 1


def test_with_cancels_on_exit(kc: Keychain) -> None:
    events: List[ChangeEvent] = []
    with kc.observe("a", events.append) as observation:
        assert isinstance(observation, Observation)
        kc["a"] = "x"
    kc["a"] = "y"
    assert len(events) == 1
    assert not observation.active


def test_a_callback_may_read_the_new_value_and_cancel_itself(kc: Keychain) -> None:
    seen: List[object] = []

    def once(event: ChangeEvent) -> None:
        seen.append(kc[event.account])
        observation.cancel()

    observation = kc.observe("a", once)
    kc["a"] = "x"
    kc["a"] = "y"
    assert seen == ["x"]
    assert not observation.active


def test_a_callback_must_be_callable(kc: Keychain) -> None:
    with pytest.raises(InvalidArgument, match="callable"):
        kc.observe("a", "not callable")  # type: ignore[arg-type]


def test_event_and_observation_reprs_name_the_key(kc: Keychain) -> None:
    events: List[ChangeEvent] = []
    observation = kc.observe("a", events.append)
    kc["a"] = "x"
    assert "kind='set'" in repr(events[0]) and "account='a'" in repr(events[0])
    assert "account='a'" in repr(observation) and "active" in repr(observation)


def test_a_call_the_binding_rejects_is_no_attempt_and_notifies_nobody(kc: Keychain) -> None:
    events: List[ChangeEvent] = []
    kc.observe("a", events.append)
    with pytest.raises(InvalidArgument):
        kc["a"] = "\udc80"  # rejected before calling C (the library's rejections: test_observers.c)
    assert events == []
