"""What an observer callback receives."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, Optional

from . import _ffi
from ._errors import KeychainError, error_for
from ._status import Status, as_status

EventKind = Literal["set", "remove"]

_KINDS = {1: "set", 2: "remove"}


@dataclass(frozen=True)
class ChangeEvent:
    """One mutation attempt on an observed key, reported after the attempt.

    ``kind`` is ``"set"`` (a write) or ``"remove"``; ``service`` and
    ``account`` name the key (the service resolved: never ``None``);
    ``status`` is the attempt's outcome and ``error`` the matching exception,
    ``None`` on success. Failed attempts and writes of an equal value are
    reported too: an event is not proof that storage changed. Events never
    carry the value.
    """

    kind: EventKind
    service: str
    account: str
    status: int = Status.OK
    error: Optional[KeychainError] = field(default=None, compare=False)

    @property
    def ok(self) -> bool:
        """Whether the attempt succeeded."""
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
