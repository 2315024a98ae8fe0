# SPDX-License-Identifier: MIT
"""One exception class per status (the values are checked against the header
in test_header_constants; the library's status strings in
IntegrationTests/c/test_constants.c)."""

from __future__ import annotations

import pickle

import pytest

from keychainkit import (
    AccessDenied,
    CorruptStore,
    DuplicateItem,
    InteractionNotAllowed,
    InvalidArgument,
    ItemNotFound,
    KeychainClosed,
    KeychainError,
    NoMasterKey,
    OutOfMemory,
    ServiceUnavailable,
    Status,
    UserCanceled,
    WrongMasterKey,
)
from keychainkit._errors import error_for

CLASSES = {
    Status.ENOTFOUND: ItemNotFound,
    Status.EDUPLICATE: DuplicateItem,
    Status.ELOCKED: InteractionNotAllowed,
    Status.EDENIED: AccessDenied,
    Status.EUNAVAILABLE: ServiceUnavailable,
    Status.ECANCELED: UserCanceled,
    Status.EINVAL: InvalidArgument,
    Status.ENOMEM: OutOfMemory,
    Status.EUNKNOWN: KeychainError,
    Status.EWRONGKEY: WrongMasterKey,
    Status.ENOKEY: NoMasterKey,
    Status.ECORRUPT: CorruptStore,
}


@pytest.mark.parametrize("status", [s for s in Status if s != Status.OK])
def test_each_error_status_has_its_exception(status: Status) -> None:
    error = error_for(status, "detail")
    assert type(error) is CLASSES[status]
    assert error.status is status
    assert str(error) == "detail"


def test_an_unknown_status_is_a_keychain_error_keeping_its_number() -> None:
    error = error_for(-42, "from a newer library")
    assert type(error) is KeychainError
    assert error.status == -42


def test_the_python_bases() -> None:
    assert issubclass(ItemNotFound, KeyError)
    assert issubclass(InvalidArgument, ValueError)
    assert issubclass(OutOfMemory, MemoryError)
    assert issubclass(KeychainClosed, InvalidArgument)
    for cls in CLASSES.values():
        assert issubclass(cls, KeychainError)
    assert not issubclass(InteractionNotAllowed, KeyError)
    assert not issubclass(ServiceUnavailable, KeyError)
    for cls in (WrongMasterKey, NoMasterKey, CorruptStore):  # never "absent", nor a bad argument
        assert not issubclass(cls, (KeyError, ValueError))


def test_str_of_a_key_error_is_not_quoted() -> None:
    assert str(ItemNotFound("no item")) == "no item"


@pytest.mark.parametrize("error", [ItemNotFound("a"), InteractionNotAllowed("b"), KeychainError("c", -42), KeychainClosed("d")])
def test_exceptions_pickle_with_their_status(error: KeychainError) -> None:
    copy = pickle.loads(pickle.dumps(error))
    assert type(copy) is type(error)
    assert (copy.status, copy.message) == (error.status, error.message)


def test_constructing_one_by_hand_takes_its_class_status() -> None:
    assert ItemNotFound("x").status == Status.ENOTFOUND
    assert KeychainError("x").status == Status.EUNKNOWN
