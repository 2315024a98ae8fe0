# SPDX-License-Identifier: MIT
"""The exceptions of keychainkit, and the one place mapping statuses to them."""

from __future__ import annotations

from typing import Any, Dict, Optional, Tuple, Type

from ._status import Status, as_status


class KeychainError(Exception):
    """A keychain operation failed.

    ``status`` is the C library's status code (a :class:`Status` when known,
    else a plain ``int``); ``message`` is the library's description of the
    failure (``kk_error_message()``). Neither ever contains a secret.
    """

    default_status: int = Status.EUNKNOWN

    def __init__(self, message: str = "", status: Optional[int] = None) -> None:
        super().__init__(message)
        self.message: str = message
        self.status: int = as_status(self.default_status if status is None else status)

    def __str__(self) -> str:
        return self.message

    def __reduce__(self) -> Tuple[Any, ...]:
        return (type(self), (self.message, self.status))


class ItemNotFound(KeychainError, KeyError):
    """No item exists for the key (``KK_ENOTFOUND``). Also a :class:`KeyError`."""

    default_status = Status.ENOTFOUND


class DuplicateItem(KeychainError):
    """An item already exists for the key (``KK_EDUPLICATE``)."""

    default_status = Status.EDUPLICATE


class InteractionNotAllowed(KeychainError):
    """The keychain is locked and may not prompt (``KK_ELOCKED``).

    The item may well exist: this never means "absent". Retry after the user
    unlocks the keychain.
    """

    default_status = Status.ELOCKED


class AccessDenied(KeychainError):
    """Access was refused by policy (``KK_EDENIED``)."""

    default_status = Status.EDENIED


class ServiceUnavailable(KeychainError):
    """No session bus or no Secret Service provider answered, or the kernel
    keyring is forbidden here (``KK_EUNAVAILABLE``)."""

    default_status = Status.EUNAVAILABLE


class UserCanceled(KeychainError):
    """The user dismissed a prompt (``KK_ECANCELED``)."""

    default_status = Status.ECANCELED


class InvalidArgument(KeychainError, ValueError):
    """A bad argument (``KK_EINVAL``). Also a :class:`ValueError`.

    Raised before calling C for a non-``str`` account or service, one that
    contains NUL or a lone surrogate, and a value that is neither ``str``
    nor bytes-like; raised by C for an empty service and oversized values.
    """

    default_status = Status.EINVAL


class OutOfMemory(KeychainError, MemoryError):
    """The library ran out of memory (``KK_ENOMEM``). Also a :class:`MemoryError`."""

    default_status = Status.ENOMEM


class WrongMasterKey(KeychainError):
    """The master secret does not open the keyring file of a file keychain
    (``KK_EWRONGKEY``, from :meth:`Keychain.file`): none of the file's items
    verifies under it — a mistyped secret, or another program's file.

    Never "absent"; nothing was written. The message names the file, never
    the secret.
    """

    default_status = Status.EWRONGKEY


class NoMasterKey(KeychainError):
    """A file keychain has no master secret (``KK_ENOKEY``, from
    :meth:`Keychain.file`): the source named yields none — an empty secret,
    an empty descriptor, no systemd credential. Nothing was written; the
    message lists the sources there are.
    """

    default_status = Status.ENOKEY


class CorruptStore(KeychainError):
    """The keyring file of a file keychain is damaged, not a keyring file, of
    a version not read, or has key parameters too weak to trust
    (``KK_ECORRUPT``, from :meth:`Keychain.file`; the message says which).
    The file is left as it is.
    """

    default_status = Status.ECORRUPT


class KeychainClosed(InvalidArgument):
    """The :class:`Keychain` (or the observation's keychain) was closed.

    An :class:`InvalidArgument`, hence a :class:`ValueError`, like any I/O
    on a closed Python file.
    """


_BY_STATUS: Dict[int, Type[KeychainError]] = {
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


def error_for(status: int, message: str) -> KeychainError:
    """The exception for a failed C call's ``status``, with ``message``.

    Statuses this binding does not know (appended to the C library later)
    give a plain :class:`KeychainError` carrying the number.
    """
    if status == Status.OK:
        raise AssertionError("error_for() called with KK_OK")
    return _BY_STATUS.get(status, KeychainError)(message, status)
