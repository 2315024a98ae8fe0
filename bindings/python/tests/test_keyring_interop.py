"""Our keyring backend and keyring's own SecretService backend read, write
and delete each other's passwords, in the same private keyring, the empty
username included."""

from __future__ import annotations

from typing import Any

import pytest
from keyring import errors

from keychainkit.keyring_backend import Keyring

USERNAMES = ["alice", "", "ünïcödé 鍵"]


@pytest.fixture
def theirs(secret_service: None) -> Any:
    """keyring's own Secret Service backend."""
    from keyring.backends.SecretService import Keyring as SecretServiceKeyring

    return SecretServiceKeyring()


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
    assert read.get_password(service, username) == f"from {writer}"
    credential = read.get_credential(service, None)
    assert credential is not None
    assert (credential.username, credential.password) == (username, f"from {writer}")


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
