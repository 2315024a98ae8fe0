"""Our keyring backend and keyring's own SecretService backend read, write
and delete each other's passwords, in the same private keyring, the empty
username included."""

from __future__ import annotations

from typing import Any, Callable

import pytest
from keyring import errors

from keychainkit.keyring_backend import Keyring

import keyring_control

USERNAMES = ["alice", "", "ünïcödé 鍵"]


def read_as(reader: Any, read: Callable[[Any], Any], wanted: Any, ours: Keyring) -> Any:
    """What `read(reader)` gives. On KWallet 5.103, keyring's own backend
    once read our fresh item's password as "" (a clean-clone CI run, session
    7): KWallet answers some reads with an empty secret, and gets about 1.5%
    of key exchanges wrong (RELIABILITY.md, "Servers"); the library checks
    both for itself, keyring does not. So there, and only for keyring's
    backend, a read that is not `wanted` is tried again, at most twice. Our
    backend is read once, everywhere."""
    value = read(reader)
    tries = 2 if reader is not ours and keyring_control.server() == "kwallet" else 0
    while value != wanted and tries > 0:
        tries -= 1
        value = read(reader)
    return value


class KWalletSessionRetries:
    """keyring's own backend, whose calls on KWallet 5.103 are made again (at
    most twice) when KWallet has lost the session keyring's connection just
    opened: "Can't find session /org/freedesktop/secrets/session/N"
    (org.qtproject.QtDBus.Error.InvalidObjectPath; a clean-clone CI run,
    session 8, in keyring's set_password — our library was not involved).
    Any other error, and any server but KWallet, is left alone."""

    def __init__(self, backend: Any) -> None:
        self._backend = backend

    def __getattr__(self, name: str) -> Any:
        method = getattr(self._backend, name)
        if keyring_control.server() != "kwallet" or not callable(method):
            return method

        def retried(*arguments: Any, **keywords: Any) -> Any:
            from jeepney.wrappers import DBusErrorResponse

            for attempt in range(3):
                try:
                    return method(*arguments, **keywords)
                except DBusErrorResponse as error:
                    if attempt == 2 or "Can't find session" not in str(error):
                        raise

        return retried


@pytest.fixture
def theirs(secret_service: None) -> Any:
    """keyring's own Secret Service backend."""
    from keyring.backends.SecretService import Keyring as SecretServiceKeyring

    return KWalletSessionRetries(SecretServiceKeyring())


@pytest.fixture
def ours(secret_service: None) -> Keyring:
    return Keyring()


@pytest.fixture(autouse=True)
def empty_usernames_are_deprecated_in_keyring(recwarn: pytest.WarningsRecorder) -> None:
    """keyring warns (DeprecationWarning) on every set_password with an
    empty username, whichever the backend; recorded, not failed."""


@pytest.mark.parametrize("username", USERNAMES)
@pytest.mark.parametrize("writer", ["keyring", "keychainkit"])
def test_each_reads_what_the_other_wrote(ours: Keyring, theirs: Any, service: str, username: str, writer: str) -> None:
    write, read = (theirs, ours) if writer == "keyring" else (ours, theirs)
    write.set_password(service, username, f"from {writer}")
    wanted = f"from {writer}"
    assert read_as(read, lambda r: r.get_password(service, username), wanted, ours) == wanted

    def credential(reader: Any) -> Any:
        found = reader.get_credential(service, None)
        return None if found is None else (found.username, found.password)

    assert read_as(read, credential, (username, wanted), ours) == (username, wanted)


@pytest.mark.parametrize("username", USERNAMES)
def test_ours_overwrites_keyrings_item_in_place(ours: Keyring, theirs: Any, service: str, username: str) -> None:
    theirs.set_password(service, username, "old")
    ours.set_password(service, username, "new")
    assert theirs.get_password(service, username) == "new"
    theirs.delete_password(service, username)
    assert ours.get_password(service, username) is None, "one item: keyring deleted the only one"


def test_each_deletes_the_others_item(ours: Keyring, theirs: Any, service: str) -> None:
    theirs.set_password(service, "a", "x")
    ours.delete_password(service, "a")
    assert theirs.get_password(service, "a") is None
    ours.set_password(service, "b", "y")
    theirs.delete_password(service, "b")
    assert ours.get_password(service, "b") is None
    with pytest.raises(errors.PasswordDeleteError):
        ours.delete_password(service, "b")
