# SPDX-License-Identifier: MIT
"""The handle :meth:`Keychain.observe` returns.

An :class:`Observation` knows nothing of the keychain: it is handed the two
callables it needs (is the registration still there, and remove it), so this
module imports nothing of the package.
"""

from __future__ import annotations

import threading
from types import TracebackType
from typing import Callable, Optional, Tuple, Type


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

    def __init__(
        self,
        service: str,
        account: str,
        *,
        registered: Callable[[], bool],
        unregister: Callable[[], None],
    ) -> None:
        """Made by :meth:`Keychain.observe`: ``registered()`` tells whether
        the callback is still registered, ``unregister()`` removes it."""
        self._hooks: Optional[Tuple[Callable[[], bool], Callable[[], None]]] = (registered, unregister)
        self._lock = threading.Lock()
        self.service: str = service
        """The service observed."""
        self.account: str = account
        """The account observed."""

    @property
    def active(self) -> bool:
        """Whether the callback is still registered (not cancelled, keychain open)."""
        hooks = self._hooks
        return hooks is not None and hooks[0]()

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
            hooks, self._hooks = self._hooks, None
        if hooks is not None:
            hooks[1]()

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
