# SPDX-License-Identifier: MIT
"""The C library's status codes, mirrored from ``kk_status`` in keychainkit.h."""

from __future__ import annotations

import enum


class Status(enum.IntEnum):
    """The outcome of a C call. Values never change; new ones are only appended.

    Member names are the C names without their ``KK_`` prefix.
    """

    OK = 0
    """Success."""
    ENOTFOUND = -1
    """No item exists for the key."""
    EDUPLICATE = -2
    """An item already exists for the key."""
    ELOCKED = -3
    """The keychain is locked and may not prompt to unlock; never "absent"."""
    EDENIED = -4
    """Access was refused by policy."""
    EUNAVAILABLE = -5
    """No session bus, or no Secret Service provider on it; or the kernel keyring is forbidden."""
    ECANCELED = -6
    """The user dismissed a prompt."""
    EINVAL = -7
    """A bad argument."""
    ENOMEM = -8
    """Out of memory."""
    EUNKNOWN = -9
    """Any other failure."""
    EWRONGKEY = -10
    """The master secret does not open the keyring file of a file keychain; never "absent"."""
    ENOKEY = -11
    """A file keychain has no master secret: the source named yields none."""
    ECORRUPT = -12
    """The keyring file is damaged, not a keyring file, of a version not read, or too weak to trust."""


def as_status(value: int) -> int:
    """Returns ``value`` as a :class:`Status` when it is a known one, else as is."""
    try:
        return Status(value)
    except ValueError:
        return int(value)
