# SPDX-License-Identifier: MIT
"""ctypes declarations of every function in keychainkit.h, on the loaded library.

Handles are :class:`KeychainPointer` (``kk_keychain *``), an opaque pointer
type of their own, so a handle cannot be passed where another pointer is
expected, nor the reverse; statuses and event kinds are
``c_int`` (C enums); ``kk_get``'s value comes back through a ``c_void_p``
(not ``c_char_p``, which would stop at the first NUL and lose the pointer
that ``kk_secret_free`` must release), and ``kk_get_many``'s values through
an array of ``c_void_p`` for the same reason (see :func:`take_secrets`).
``kk_list``'s ``char ***`` is a
``POINTER(ACCOUNT_LIST)``: the array itself must stay a pointer (it goes back
to ``kk_list_free``), its elements are NUL-terminated account names, which
``c_char_p`` copies into ``bytes`` when indexed.
"""

from __future__ import annotations

from ctypes import (
    CFUNCTYPE,
    POINTER,
    Structure,
    c_char_p,
    c_int,
    c_size_t,
    c_ubyte,
    c_uint,
    c_uint64,
    c_void_p,
    string_at,
)
from typing import Any, Dict, List, Optional, Sequence, Tuple

from ._errors import KeychainError, error_for
from ._library import load
from ._status import Status

OBSERVER = CFUNCTYPE(None, c_int, c_char_p, c_char_p, c_int, c_void_p)
"""``kk_observer``: (event, service, account, status, userdata)."""

DESTROY = CFUNCTYPE(None, c_void_p)
"""``void (*destroy)(void *userdata)``."""

class KeychainPointer(c_void_p):
    """``kk_keychain *``: an open handle, opaque to Python."""


ACCOUNT_LIST = POINTER(c_char_p)
"""``char **``: the NULL-terminated array ``kk_list`` returns."""


class SecretServiceOptions(Structure):
    """``kk_secret_service_options``, version ``SECRET_SERVICE_OPTIONS_VERSION``."""

    _fields_ = [
        ("version", c_uint),
        ("collection", c_char_p),
        ("timeout_ms", c_uint),
        ("prompts", c_int),
        ("prompt_timeout_ms", c_uint),
        ("transfer", c_int),
    ]


class FileOptions(Structure):
    """``kk_file_options``, version ``FILE_OPTIONS_VERSION``."""

    _fields_ = [
        ("version", c_uint),
        ("path", c_char_p),
        ("master_source", c_int),
        ("master", POINTER(c_ubyte)),
        ("master_len", c_size_t),
        ("master_fd", c_int),
        ("lock_timeout_ms", c_uint),
        ("flags", c_uint),
    ]


class ServerLoginStruct(Structure):
    """``kk_server_login``, version ``SERVER_LOGIN_VERSION``."""

    _fields_ = [
        ("version", c_uint),
        ("server", c_char_p),
        ("account", c_char_p),
        ("protocol", c_char_p),
        ("port", c_uint),
        ("path", c_char_p),
        ("domain", c_char_p),
        ("authtype", c_char_p),
    ]


SERVER_LOGIN_VERSION = 1
"""``KK_SERVER_LOGIN_VERSION``."""

SECRET_SERVICE_OPTIONS_VERSION = 2
"""``KK_SECRET_SERVICE_OPTIONS_VERSION``."""

DEFAULT_TIMEOUT_MS = 5000
"""``KK_DEFAULT_TIMEOUT_MS``: the default bound on one operation."""

DEFAULT_PROMPT_TIMEOUT_MS = 120000
"""``KK_DEFAULT_PROMPT_TIMEOUT_MS``: the default bound on waiting for the user."""

TRANSFER_PREFER_ENCRYPTED = 0
"""``KK_TRANSFER_PREFER_ENCRYPTED``."""

TRANSFER_REQUIRE_ENCRYPTED = 1
"""``KK_TRANSFER_REQUIRE_ENCRYPTED``."""

PROMPT_POLICIES = {"automatic": 0, "never": 1, "allowed": 2}
"""``kk_prompt_policy``: ``KK_PROMPT_AUTOMATIC``, ``KK_PROMPT_NEVER``, ``KK_PROMPT_ALLOWED``."""

FILE_OPTIONS_VERSION = 1
"""``KK_FILE_OPTIONS_VERSION``."""

FILE_CACHE_MASTER = 1
"""``KK_FILE_CACHE_MASTER``: a ``kk_file_options.flags`` bit."""

MASTER_SOURCES = {"automatic": 0, "secret": 1, "fd": 2, "credential": 3, "portal": 4}
"""``kk_master_source``: ``KK_MASTER_AUTOMATIC``, ``KK_MASTER_SECRET``,
``KK_MASTER_FD``, ``KK_MASTER_CREDENTIAL``, ``KK_MASTER_PORTAL``."""

PERSISTENCES = {0: "persistent", 1: "until reboot", 2: "until logout", 3: "until close"}
"""``kk_persistence``, by value: ``KK_PERSISTENT``, ``KK_UNTIL_REBOOT``,
``KK_UNTIL_LOGOUT``, ``KK_UNTIL_CLOSE`` (the C name is ``KK_`` and the
words in capitals, joined by ``_``)."""

_PROTOTYPES: Dict[str, Tuple[Any, Sequence[Any]]] = {
    "kk_version_number": (c_int, []),
    "kk_version_string": (c_char_p, []),
    "kk_status_string": (c_char_p, [c_int]),
    "kk_error_message": (c_char_p, []),
    "kk_open_default": (c_int, [POINTER(KeychainPointer)]),
    "kk_open_secret_service": (c_int, [POINTER(KeychainPointer)]),
    "kk_secret_service_options_init": (c_int, [POINTER(SecretServiceOptions), c_uint]),
    "kk_open_secret_service_with": (c_int, [POINTER(SecretServiceOptions), POINTER(KeychainPointer)]),
    "kk_transfer_encrypted": (c_int, [KeychainPointer, POINTER(c_int)]),
    "kk_unlock": (c_int, [KeychainPointer, c_char_p, c_void_p, c_size_t]),
    "kk_lock": (c_int, [KeychainPointer, c_char_p]),
    "kk_open_memory": (c_int, [POINTER(KeychainPointer)]),
    "kk_open_memory_shared": (c_int, [KeychainPointer, POINTER(KeychainPointer)]),
    "kk_open_kernel_keyring": (c_int, [POINTER(KeychainPointer)]),
    "kk_open_kernel_keyring_in": (c_int, [c_int, POINTER(KeychainPointer)]),
    "kk_open_file": (c_int, [POINTER(FileOptions), POINTER(KeychainPointer)]),
    "kk_persistence_of": (c_int, [KeychainPointer, POINTER(c_int)]),
    "kk_backend_of": (c_int, [KeychainPointer, POINTER(c_char_p)]),
    "kk_close": (None, [KeychainPointer]),
    "kk_get": (c_int, [KeychainPointer, c_char_p, c_char_p, POINTER(c_void_p), POINTER(c_size_t)]),
    "kk_get_many": (
        c_int,
        [KeychainPointer, c_char_p, POINTER(c_char_p), c_size_t, POINTER(c_void_p), POINTER(c_size_t), POINTER(c_int)],
    ),
    "kk_exists": (c_int, [KeychainPointer, c_char_p, c_char_p]),
    "kk_set": (c_int, [KeychainPointer, c_char_p, c_char_p, c_char_p, c_size_t]),
    "kk_remove": (c_int, [KeychainPointer, c_char_p, c_char_p]),
    "kk_list": (c_int, [KeychainPointer, c_char_p, POINTER(ACCOUNT_LIST), POINTER(c_size_t)]),
    "kk_list_free": (None, [ACCOUNT_LIST]),
    "kk_secret_free": (None, [c_void_p]),
    "kk_observe": (c_int, [KeychainPointer, c_char_p, c_char_p, OBSERVER, c_void_p, DESTROY, POINTER(c_uint64)]),
    "kk_unobserve": (c_int, [KeychainPointer, c_uint64]),
    "kk_server_login_get": (c_int, [KeychainPointer, POINTER(ServerLoginStruct), POINTER(c_void_p), POINTER(c_size_t)]),
    "kk_server_login_set": (c_int, [KeychainPointer, POINTER(ServerLoginStruct), c_char_p, c_size_t]),
    "kk_server_login_remove": (c_int, [KeychainPointer, POINTER(ServerLoginStruct)]),
    "kk_server_login_accounts": (c_int, [KeychainPointer, c_char_p, POINTER(ACCOUNT_LIST), POINTER(c_size_t)]),
}

library = load(_PROTOTYPES)
"""The loaded ``ctypes.CDLL``."""

for _name, (_restype, _argtypes) in _PROTOTYPES.items():
    _function = getattr(library, _name)
    _function.restype = _restype
    _function.argtypes = list(_argtypes)

kk_version_number = library.kk_version_number
kk_version_string = library.kk_version_string
kk_status_string = library.kk_status_string
kk_error_message = library.kk_error_message
kk_open_default = library.kk_open_default
kk_open_secret_service = library.kk_open_secret_service
kk_open_secret_service_with = library.kk_open_secret_service_with
kk_open_memory = library.kk_open_memory
kk_open_memory_shared = library.kk_open_memory_shared
kk_open_kernel_keyring = library.kk_open_kernel_keyring
kk_open_kernel_keyring_in = library.kk_open_kernel_keyring_in
kk_open_file = library.kk_open_file
kk_persistence_of = library.kk_persistence_of
kk_backend_of = library.kk_backend_of
kk_close = library.kk_close
kk_get = library.kk_get
kk_get_many = library.kk_get_many
kk_exists = library.kk_exists
kk_set = library.kk_set
kk_remove = library.kk_remove
kk_list = library.kk_list
kk_list_free = library.kk_list_free
kk_secret_free = library.kk_secret_free
kk_observe = library.kk_observe
kk_unobserve = library.kk_unobserve
kk_transfer_encrypted = library.kk_transfer_encrypted
kk_unlock = library.kk_unlock
kk_lock = library.kk_lock
kk_server_login_get = library.kk_server_login_get
kk_server_login_set = library.kk_server_login_set
kk_server_login_remove = library.kk_server_login_remove
kk_server_login_accounts = library.kk_server_login_accounts

KERNEL_KEYRINGS = {"persistent": 0, "user": 1, "session": 2}
"""``kk_kernel_keyring``: ``KK_KERNEL_PERSISTENT``, ``KK_KERNEL_USER``, ``KK_KERNEL_SESSION``."""

MAX_VALUE_SIZE = 16 * 1024 * 1024
"""``KK_MAX_VALUE_SIZE``: the largest value ``kk_set`` accepts, in bytes."""


def status_string(status: int) -> str:
    """``kk_status_string(status)``: a short English description."""
    return (kk_status_string(status) or b"").decode("utf-8", "replace")


def failure(status: int, context: Optional[str] = None) -> KeychainError:
    """The exception for the calling thread's last failed call, which
    returned ``status``. Call it right after that call, before any other.

    ``context`` (the key involved, never a value) is appended to the
    library's message.
    """
    message = (kk_error_message() or b"").decode("utf-8", "replace") or status_string(status)
    if context:
        message = f"{message} ({context})"
    return error_for(status, message)


def take_secret(function: str, value: c_void_p, length: int) -> bytes:
    """The bytes of a secret a call returned with KK_OK (``kk_get``,
    ``kk_server_login_get``); the caller frees it with ``kk_secret_free``."""
    if not value:
        raise KeychainError(f"{function} returned KK_OK without a value", Status.EUNKNOWN)
    return string_at(value, length)


def take_secrets(function: str, values: Any, lengths: Any, statuses: Any, count: int) -> List[Optional[bytes]]:
    """The bytes of each entry a batched read (``kk_get_many``) returned
    with KK_OK among the first ``count``, ``None`` for the others; the
    caller frees every value with :func:`free_secrets`, also when this
    raises."""
    return [
        take_secret(function, values[index], lengths[index]) if statuses[index] == Status.OK else None
        for index in range(count)
    ]


def free_secrets(values: Any, count: int) -> None:
    """``kk_secret_free`` on each of the ``count`` values of a batched read
    (``values``: an array of ``c_void_p``; NULL entries are skipped)."""
    for index in range(count):
        value = values[index]
        if value:
            kk_secret_free(value)


def read_list(function: str, names: Any, count: int) -> List[str]:
    """Copies the ``count`` names of a list a call returned (``kk_list``,
    ``kk_server_login_accounts``; not freed here), checking the NULL
    terminator and the encoding."""
    if not names:
        raise KeychainError(f"{function} returned KK_OK without a list", Status.EUNKNOWN)
    copied: List[bytes] = []
    for index in range(count):
        name = names[index]
        if name is None:
            raise KeychainError(f"{function} reported {count} names but listed {index}", Status.EUNKNOWN)
        copied.append(name)
    if names[count] is not None:
        raise KeychainError(f"{function} reported {count} names but listed more", Status.EUNKNOWN)
    try:
        return [name.decode("utf-8") for name in copied]
    except UnicodeDecodeError:
        raise KeychainError(f"{function} returned a name that is not valid UTF-8", Status.EUNKNOWN) from None
