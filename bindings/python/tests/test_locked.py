# SPDX-License-Identifier: MIT
"""A locked keyring is InteractionNotAllowed, never absent, through every
call of the binding that reads, writes or removes an item.

What the library answers while a collection is locked (KK_ELOCKED for the
item, presence and listing where the server shows a locked collection's
items, absence only of what can be seen, failed attempts notified, nothing
changed once unlocked) is asserted by the C ABI suite:
IntegrationTests/c/test_secret_service.c (locked_collection_is_elocked_not_absent,
absent_is_only_said_of_what_can_be_seen). Here, with one lock, that the
binding raises it from each entry point (get_many() and the batched
readers included), never a KeyError (which the Mapping mixins would take
for "absent"), and never quoting the secret.
"""

from __future__ import annotations

from typing import Callable, Iterator, List

import pytest

import keyring_control
from keychainkit import InteractionNotAllowed, Keychain, ServerLogin, Status

MARKER = "SECRET-MARKER-locked-51c2"


def login(kc: Keychain) -> ServerLogin:
    return ServerLogin(f"{kc.service}.example", "dave", protocol="https")


CALLS: List[Callable[[Keychain], object]] = [
    lambda kc: kc["token"],
    lambda kc: kc.get("token", "default"),
    lambda kc: kc.value("token"),
    lambda kc: kc.value_bytes("token"),
    lambda kc: kc.__setitem__("token", MARKER),
    lambda kc: kc.remove_value("token"),
    lambda kc: kc.__delitem__("token"),
    lambda kc: kc.pop("token", None),
    lambda kc: kc.get_many(["absent", "token"]),
    lambda kc: kc.get_many_bytes(["token"]),
    lambda kc: kc.server_logins.password(login(kc)),
]


@pytest.fixture(params=keyring_control.LOCK_STATES)
def locked(request: pytest.FixtureRequest, secret_service: None, service: str) -> Iterator[Keychain]:
    """A Secret Service keychain holding 'token' and a server login, with the
    keyring locked (in each of keyring_control.LOCK_STATES)."""
    with Keychain(service=service) as kc:
        kc["token"] = MARKER
        kc.server_logins.set_password(login(kc), MARKER)
        with keyring_control.locked(request.param):
            yield kc
        assert kc["token"] == kc.server_logins.password(login(kc)) == MARKER  # nothing was lost or changed


VALUE_READERS: List[Callable[[Keychain], object]] = [  # each lists the accounts first
    lambda kc: list(kc.values()),
    lambda kc: list(kc.items()),
    lambda kc: dict(kc),
    lambda kc: kc == {"token": MARKER},
    lambda kc: kc.popitem(),
    lambda kc: kc.clear(),
]


def test_every_call_raises_interaction_not_allowed_never_key_error(locked: Keychain) -> None:
    # The Mapping mixins (get, pop, values, items, ==, popitem, clear) treat
    # a KeyError as "absent": InteractionNotAllowed must never be one.
    for index, call in enumerate(CALLS + VALUE_READERS):
        with pytest.raises(InteractionNotAllowed) as caught:
            call(locked)
        assert caught.value.status == Status.ELOCKED, index
        assert not isinstance(caught.value, KeyError), index
        assert MARKER not in str(caught.value) + repr(caught.value), index
    with pytest.raises(InteractionNotAllowed) as one:  # get_many names the account value_bytes fails on
        for account in ("absent", "token"):
            locked.value_bytes(account)
    with pytest.raises(InteractionNotAllowed) as many:
        locked.get_many_bytes(["absent", "token"])
    assert str(many.value).endswith(str(one.value)[str(one.value).rindex(" (service "):])
    assert keyring_control.is_locked()


@pytest.mark.skipif(keyring_control.server() != "gnome-keyring", reason="only gnome-keyring takes a password over the bus")
def test_unlock_marshals_the_password_and_wipes_a_bytearray(secret_service: None, service: str) -> None:
    # What kk_unlock does is the C suite's (test_unlock.c); here: str, bytes
    # and bytearray passwords reach it, a bytearray comes back zeroed, a
    # refused password is WrongMasterKey, lock() locks.
    import os

    from keychainkit import WrongMasterKey

    password = os.environ["KEYCHAINKIT_TEST_KEYRING_PASSWORD"]
    with Keychain(service=service) as kc:
        kc["token"] = MARKER
        for given in (password, password.encode(), bytearray(password.encode())):
            kc.lock()
            assert keyring_control.is_locked()
            wrong = bytearray(b"not the password")
            with pytest.raises(WrongMasterKey):
                kc.unlock(wrong)
            assert wrong == bytearray(len(b"not the password"))
            assert keyring_control.is_locked()
            kc.unlock(given, collection="default")
            assert not keyring_control.is_locked()
            if isinstance(given, bytearray):
                assert given == bytearray(len(password))
        assert kc["token"] == MARKER
