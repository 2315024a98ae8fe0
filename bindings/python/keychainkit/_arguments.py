# SPDX-License-Identifier: MIT
"""Turning Python arguments into the bytes the C library takes.

Everything the C library would reject for its type or encoding is rejected
here first, with :class:`InvalidArgument`. Values are never quoted in an
error message; names (accounts, services) are, since they are not secret.
"""

from __future__ import annotations

from typing import Union

from ._errors import InvalidArgument

Value = Union[str, bytes, bytearray, memoryview]
"""What a value may be: text (stored as UTF-8) or bytes (stored as is)."""


def encode_name(name: object, what: str) -> bytes:
    """``name`` (an account or service) as NUL-terminable UTF-8 bytes.

    An empty service is left to the C library, which rejects it itself; the
    empty account is an ordinary one (``username=""``, as ``keyring`` stores it).
    """
    if not isinstance(name, str):
        raise InvalidArgument(f"the {what} must be a str, not {type(name).__name__}")
    if "\0" in name:
        raise InvalidArgument(f"the {what} {name!r} contains a NUL character")
    try:
        return name.encode("utf-8")
    except UnicodeEncodeError as error:
        position = error.start
    raise InvalidArgument(f"the {what} {name!r} is not valid Unicode text (lone surrogate at index {position})")


def encode_value(value: object) -> bytes:
    """``value`` as the bytes to store: ``str`` as UTF-8, bytes-like as is.

    The exception raised for a bad value neither quotes it nor chains an
    exception that holds it.
    """
    if isinstance(value, str):
        try:
            return value.encode("utf-8")
        except UnicodeEncodeError as error:
            position = error.start
        raise InvalidArgument(f"the value is not valid Unicode text (lone surrogate at index {position})")
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value)
    raise InvalidArgument(f"a value must be str or bytes-like, not {type(value).__name__}")
