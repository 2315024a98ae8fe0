# SPDX-License-Identifier: MIT
"""keychainkit.keyring_backend.Keyring passes keyring's own backend tests,
and maps the library's failures to keyring's exceptions.

``BackendBasicTests`` is keyring's whole contract for a backend (the empty
username included), run with no skips against the private keyring. Items
shared with keyring's own SecretService backend are the library's:
IntegrationTests/c/test_contention.c, test_outside_changes.c, cli/run.sh.
"""

from __future__ import annotations

from typing import Iterator

import pytest
from keyring import errors
from keyring.testing.backend import BackendBasicTests

import keyring_control
from keychainkit.keyring_backend import PRIORITY, SOLE_PRIORITY, Keyring
from support import require_private_keyring

MARKER = "SECRET-MARKER-keyring-backend-9e1f"


@pytest.fixture
def no_display(monkeypatch: pytest.MonkeyPatch) -> None:
    """Unlock prompts are never shown (the library's automatic policy)."""
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)


class TestKeyringContract(BackendBasicTests):
    """keyring.testing.backend.BackendBasicTests, every test of it."""

    def init_keyring(self) -> Keyring:
        require_private_keyring()
        return Keyring()


def test_the_priority_is_above_keyrings_secret_service(secret_service: None) -> None:
    from keyring.backends.SecretService import Keyring as SecretServiceKeyring

    assert Keyring.priority in (PRIORITY, SOLE_PRIORITY)  # which: see test_keyring_discovery.py
    assert Keyring.priority > SecretServiceKeyring.priority
    assert Keyring.viable


def test_the_name_is_printable_and_says_what_it_is() -> None:
    assert Keyring.name == "KeychainKit Secret Service"


def test_get_credential_without_a_username_takes_the_first_account(secret_service: None, service: str) -> None:
    keyring = Keyring()
    assert keyring.get_credential(service, None) is None
    keyring.set_password(service, "bob", "b")
    keyring.set_password(service, "alice", "a")
    credential = keyring.get_credential(service, None)
    assert credential is not None
    assert (credential.username, credential.password) == ("alice", "a")
    assert keyring.get_credential(service, "nobody") is None


def test_deleting_a_missing_password_is_password_delete_error(secret_service: None, service: str) -> None:
    keyring = Keyring()
    with pytest.raises(errors.PasswordDeleteError):
        keyring.delete_password(service, "absent")


@pytest.fixture(params=keyring_control.LOCK_STATES)
def locked(request: pytest.FixtureRequest, secret_service: None, no_display: None, service: str) -> Iterator[Keyring]:
    """A backend whose service holds 'token', with the keyring locked (in
    each of keyring_control.LOCK_STATES)."""
    keyring = Keyring()
    keyring.set_password(service, "token", MARKER)
    with keyring_control.locked(request.param):
        yield keyring
    assert keyring.get_password(service, "token") == MARKER


@pytest.mark.parametrize("call", ["get_password", "set_password", "delete_password", "get_credential", "any_credential"])
def test_locked_is_keyring_locked(locked: Keyring, service: str, call: str) -> None:
    calls = {
        "get_password": lambda: locked.get_password(service, "token"),
        "set_password": lambda: locked.set_password(service, "token", "new"),
        "delete_password": lambda: locked.delete_password(service, "token"),
        "get_credential": lambda: locked.get_credential(service, "token"),
        "any_credential": lambda: locked.get_credential(service, None),
    }
    with pytest.raises(errors.KeyringLocked) as caught:
        calls[call]()
    assert MARKER not in str(caught.value) + repr(caught.value)


@pytest.fixture
def unreachable(secret_service: None, monkeypatch: pytest.MonkeyPatch) -> Keyring:
    """A backend whose handle first connects with no session bus."""
    monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent/bus")
    return Keyring()


@pytest.mark.parametrize("call", ["get_password", "set_password", "delete_password", "get_credential"])
def test_no_secret_service_is_no_keyring_error(unreachable: Keyring, service: str, call: str) -> None:
    calls = {
        "get_password": lambda: unreachable.get_password(service, "a"),
        "set_password": lambda: unreachable.set_password(service, "a", MARKER),
        "delete_password": lambda: unreachable.delete_password(service, "a"),
        "get_credential": lambda: unreachable.get_credential(service, None),
    }
    with pytest.raises(errors.NoKeyringError) as caught:
        calls[call]()
    assert MARKER not in str(caught.value)


def test_an_unusable_service_is_a_keyring_error(secret_service: None) -> None:
    keyring = Keyring()
    with pytest.raises(errors.PasswordSetError, match="service is empty"):
        keyring.set_password("", "a", MARKER)
    with pytest.raises(errors.KeyringError, match="service is empty"):
        keyring.get_password("", "a")


def test_no_secret_in_repr_or_str(secret_service: None, service: str) -> None:
    keyring = Keyring()
    keyring.set_password(service, "a", MARKER)
    assert keyring.get_password(service, "a") == MARKER
    assert MARKER not in repr(keyring) + str(keyring) + repr(vars(keyring))


def test_preferred_collection_from_the_environment(secret_service: None, service: str,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KEYRING_PROPERTY_PREFERRED_COLLECTION", "nosuchalias")
    backend = Keyring()
    backend.set_properties_from_env()
    with pytest.raises(errors.PasswordSetError, match="nosuchalias"):
        backend.set_password(service, "alice", "nowhere")
