# SPDX-License-Identifier: MIT
"""KeychainKit for Python: small secrets in the Linux system keychain.

A pure-Python (ctypes) binding of libkeychainkit, the KeychainKit C library::

    from keychainkit import Keychain

    with Keychain(service="my-app") as kc:
        kc["token"] = "s3cret"
        print(kc.get("token"))

See :class:`Keychain`. Importing raises :class:`ImportError` when no
compatible libkeychainkit can be loaded (set ``KEYCHAINKIT_LIBRARY`` to its
path to choose one).
"""

from __future__ import annotations

from . import _ffi
from ._errors import (
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
    UserCanceled,
    WrongMasterKey,
)
from ._events import ChangeEvent, EventKind
from ._keychain import Keychain
from ._server_logins import ServerLogin, ServerLogins
from ._observation import Observation
from ._status import Status
from ._version import package_version

__version__: str = package_version()
"""This package's version, the one of the ``include/keychainkit.h`` it was
built from (see :func:`library_version` for the loaded library's)."""

MAX_VALUE_SIZE: int = _ffi.MAX_VALUE_SIZE
"""The largest value the library stores, in bytes (16 MiB)."""


def library_version() -> str:
    """The loaded C library's version, ``"MAJOR.MINOR.PATCH"``."""
    return (_ffi.kk_version_string() or b"").decode("ascii", "replace")


def library_path() -> str:
    """The name or path the C library was loaded from."""
    return str(_ffi.library._name)


__all__ = [
    "AccessDenied",
    "ChangeEvent",
    "CorruptStore",
    "DuplicateItem",
    "EventKind",
    "InteractionNotAllowed",
    "InvalidArgument",
    "ItemNotFound",
    "Keychain",
    "KeychainClosed",
    "KeychainError",
    "MAX_VALUE_SIZE",
    "NoMasterKey",
    "Observation",
    "OutOfMemory",
    "ServerLogin",
    "ServerLogins",
    "ServiceUnavailable",
    "Status",
    "UserCanceled",
    "WrongMasterKey",
    "library_path",
    "library_version",
]
