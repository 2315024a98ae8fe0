# SPDX-License-Identifier: MIT
"""What an observer callback receives."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, Optional

from . import _ffi
from ._errors import KeychainError, error_for
from ._status import Status, as_status

EventKind = Literal["set", "remove", "changed", "deleted"]
"""What happened to an observed key:

- ``"set"``: a write attempt through the observing keychain (``KK_EVENT_SET``);
- ``"remove"``: a removal attempt through it (``KK_EVENT_REMOVE``);
- ``"changed"``: the item was created or changed elsewhere — by another
  process (``secret-tool``, libsecret, Python ``keyring``, another
  KeychainKit program) or through another keychain — so read it again
  (``KK_EVENT_CHANGED``, since library 0.4);
- ``"deleted"``: the item was removed elsewhere (``KK_EVENT_DELETED``,
  since library 0.4).
"""

_KINDS = {1: "set", 2: "remove", 3: "changed", 4: "deleted"}


@dataclass(frozen=True)
class ChangeEvent:
    """One change of an observed key, reported after it happened.

    ``kind`` (an :data:`EventKind`) is ``"set"`` (a write) or ``"remove"``
    for an attempt through the observing keychain, ``"changed"`` or
    ``"deleted"`` for a change made elsewhere (another process, or another
    keychain); ``service`` and ``account`` name the key (the service
    resolved: never ``None``); ``status`` is the outcome and ``error`` the
    matching exception, ``None`` on success. Failed attempts and writes of
    an equal value are reported too: a ``"set"`` or ``"remove"`` event is
    not proof that storage changed. Changes made elsewhere always have
    status OK and no error. Events never carry the value: read it again.
    """

    kind: EventKind
    service: str
    account: str
    status: int = Status.OK
    error: Optional[KeychainError] = field(default=None, compare=False)

    @property
    def ok(self) -> bool:
        """Whether the attempt succeeded (always, for a change made elsewhere)."""
        return self.status == Status.OK

    @classmethod
    def from_c(cls, event: int, service: Optional[bytes], account: Optional[bytes], status: int) -> "ChangeEvent":
        """The event for a ``kk_observer`` call's arguments."""
        service_name = (service or b"").decode("utf-8", "replace")
        account_name = (account or b"").decode("utf-8", "replace")
        error = None
        if status != Status.OK:
            detail = f"{_ffi.status_string(status)} (service {service_name!r}, account {account_name!r})"
            error = error_for(status, detail)
        kind = _KINDS.get(event, f"unknown event {event}")
        return cls(kind, service_name, account_name, as_status(status), error)  # type: ignore[arg-type]
