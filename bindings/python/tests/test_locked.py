"""A locked keyring is InteractionNotAllowed, never absent.

An item that exists raises InteractionNotAllowed from every call that reads,
writes or removes it while its collection is locked. Where the server lists
a locked collection's items (gnome-keyring, KWallet), a key with no item at
all still reads as absent, and listing works: account names are attributes,
not secrets, so iter(), len() and accounts() list the items of a locked
collection, and only reading their values fails. Where it hides them
(KeePassXC, for a locked database), absence and the list cannot be known:
both raise InteractionNotAllowed too.
"""

from __future__ import annotations

from typing import Callable, Iterator, List

import pytest

import keyring_control
from keychainkit import ChangeEvent, InteractionNotAllowed, ItemNotFound, Keychain, Status

MARKER = "SECRET-MARKER-locked-51c2"

CALLS: List[Callable[[Keychain], object]] = [
    lambda kc: kc["token"],
    lambda kc: kc.get("token", "default"),
    lambda kc: kc.value("token"),
    lambda kc: kc.value_bytes("token"),
    lambda kc: kc.__setitem__("token", MARKER),
    lambda kc: kc.remove_value("token"),
    lambda kc: kc.__delitem__("token"),
    lambda kc: kc.pop("token", None),
]


@pytest.fixture
def locked(secret_service: None, service: str) -> Iterator[Keychain]:
    """A Secret Service keychain holding 'token', with the keyring locked."""
    with Keychain(service=service) as kc:
        kc["token"] = MARKER
        keyring_control.lock()
        try:
            assert keyring_control.is_locked()
            yield kc
        finally:
            keyring_control.unlock()
        assert not keyring_control.is_locked()
        assert kc["token"] == MARKER  # nothing was lost or changed


@pytest.mark.parametrize("call", CALLS, ids=range(len(CALLS)))
def test_every_call_raises_interaction_not_allowed(locked: Keychain, call: Callable[[Keychain], object]) -> None:
    with pytest.raises(InteractionNotAllowed) as caught:
        call(locked)
    assert caught.value.status == Status.ELOCKED
    assert not isinstance(caught.value, KeyError)
    assert MARKER not in str(caught.value) + repr(caught.value)


def test_failed_attempts_notify_with_the_error(locked: Keychain) -> None:
    events: List[ChangeEvent] = []
    locked.observe("token", events.append)
    for attempt in (lambda: locked.__setitem__("token", "x"), lambda: locked.remove_value("token")):
        with pytest.raises(InteractionNotAllowed):
            attempt()
    assert [(event.kind, event.status) for event in events] == [("set", Status.ELOCKED), ("remove", Status.ELOCKED)]
    assert all(isinstance(event.error, InteractionNotAllowed) for event in events)


def test_a_locked_collection_still_lists_its_accounts(locked: Keychain) -> None:
    if keyring_control.hides_locked_items():
        for call in (lambda: "token" in locked, lambda: list(locked), lambda: len(locked), locked.accounts):
            with pytest.raises(InteractionNotAllowed) as caught:
                call()
            assert "/org/freedesktop/secrets/collection/" in str(caught.value)  # what it could not see
        return
    assert "token" in locked and "token" in locked.keys()  # presence is known without reading
    assert locked.contains("token")
    assert list(locked) == ["token"]
    assert len(locked) == 1
    assert locked.accounts() == ["token"]
    assert list(locked.keys()) == ["token"]
    assert keyring_control.is_locked()


VALUE_READERS: List[Callable[[Keychain], object]] = [
    lambda kc: list(kc.values()),
    lambda kc: list(kc.items()),
    lambda kc: dict(kc),
    lambda kc: kc == {"token": MARKER},
    lambda kc: kc.popitem(),
    lambda kc: kc.clear(),
]


@pytest.mark.parametrize("call", VALUE_READERS, ids=range(len(VALUE_READERS)))
def test_reading_the_listed_values_raises_interaction_not_allowed(
    locked: Keychain, call: Callable[[Keychain], object]
) -> None:
    with pytest.raises(InteractionNotAllowed) as caught:
        call(locked)
    assert not isinstance(caught.value, KeyError)
    assert MARKER not in str(caught.value) + repr(caught.value)
    if not keyring_control.hides_locked_items():
        assert locked.accounts() == ["token"]  # nothing was removed (the fixture checks it after unlocking)


def test_a_key_with_no_item_reads_as_absent_while_locked(locked: Keychain) -> None:
    if keyring_control.hides_locked_items():
        for call in (lambda: locked["absent"], lambda: "absent" in locked, lambda: locked.get("absent", "default")):
            with pytest.raises(InteractionNotAllowed):
                call()
        return
    with pytest.raises(ItemNotFound):
        locked["absent"]
    assert "absent" not in locked
    assert locked.get("absent", "default") == "default"
    assert keyring_control.is_locked()
