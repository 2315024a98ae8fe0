"""The handle :meth:`Keychain.observe` returns."""

from __future__ import annotations

import threading
from types import TracebackType
from typing import TYPE_CHECKING, Optional, Type

if TYPE_CHECKING:
    from ._keychain import Keychain


class Observation:
    """A registered observer; :meth:`cancel` (or leaving a ``with`` block)
    unregisters it.

    Its callback hears this keychain's own writes on the writing thread,
    and changes made elsewhere on the keychain's delivery thread (see
    :meth:`Keychain.observe`).

    Dropping the last reference to an ``Observation`` does *not* cancel it:
    like ``atexit`` or ``signal`` handlers, the callback (and whatever it
    captures) stays registered and alive until :meth:`cancel` or the
    keychain's :meth:`~Keychain.close`.
    """

    def __init__(self, keychain: "Keychain", token: int, registration_id: int, service: Optional[str], account: str) -> None:
        self._keychain: Optional["Keychain"] = keychain
        self._token = token
        self._registration_id = registration_id
        self._lock = threading.Lock()
        self.service: Optional[str] = service
        """The service observed (``None``: the keychain's default service)."""
        self.account: str = account
        """The account observed."""

    @property
    def active(self) -> bool:
        """Whether the callback is still registered (not cancelled, keychain open)."""
        keychain = self._keychain
        return keychain is not None and keychain._has_registration(self._registration_id)

    def cancel(self) -> None:
        """Unregisters the callback. Idempotent; a no-op once the keychain is
        closed (closing unregisters every observer). May be called from the
        callback itself. A callback already running on another thread may
        still complete, and one another thread's write started just before
        may still begin. Cancelling the keychain's last observation ends
        its delivery thread and waits until it has (a callback it runs
        included), unless called from such a callback: do not hold a lock
        that a callback takes while cancelling the last observation."""
        with self._lock:
            keychain, self._keychain = self._keychain, None
        if keychain is not None:
            keychain._unobserve(self._token)

    def __enter__(self) -> "Observation":
        """Returns the observation; ``with`` cancels it on exit."""
        return self

    def __exit__(
        self,
        kind: Optional[Type[BaseException]],
        error: Optional[BaseException],
        traceback: Optional[TracebackType],
    ) -> None:
        """Cancels the observation (see :meth:`cancel`)."""
        self.cancel()

    def __repr__(self) -> str:
        state = "active" if self.active else "cancelled"
        return f"<keychainkit.Observation service={self.service!r} account={self.account!r} {state}>"
