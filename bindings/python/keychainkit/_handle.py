# SPDX-License-Identifier: MIT
"""The lifetime of one ``kk_keychain *``: no call after ``kk_close``, and no
``kk_close`` while a call through the handle is running.

keychainkit.h forbids closing a handle while another thread uses it. Here
:meth:`Handle.close` only marks the handle closed when calls are running
(on other threads, or further up this thread's stack when ``close()`` is
called from an observer callback); the last of them closes it on its way
out. Calls that start after ``close()`` raise :class:`KeychainClosed`.
"""

from __future__ import annotations

import os
import threading
import weakref
from ctypes import byref
from types import TracebackType
from typing import Any, Callable, Optional, Type

from . import _ffi
from ._errors import KeychainClosed


class Handle:
    """An open ``kk_keychain *`` and the count of calls running through it.

    In a fork()ed child, every handle gets a new lock and a call count of
    zero: calls that other threads of the parent were making do not exist
    there, and a lock one of them held would never be released.
    """

    def __init__(self, opener: Callable[[Any], int]) -> None:
        """Opens a handle with ``opener`` (``kk_open_memory`` or
        ``kk_open_secret_service``); raises the mapped error on failure."""
        pointer = _ffi.KeychainPointer()
        status = opener(byref(pointer))
        if status != 0:
            raise _ffi.failure(status)
        self._pointer: Optional[_ffi.KeychainPointer] = pointer
        self._lock = threading.Lock()
        self._calls = 0
        self._closing = False
        _OPEN_HANDLES.add(self)

    def _after_fork_in_child(self) -> None:
        self._lock = threading.Lock()
        self._calls = 0

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` was called."""
        return self._closing

    def __enter__(self) -> _ffi.KeychainPointer:
        """Starts a call: returns the pointer, or raises :class:`KeychainClosed`."""
        with self._lock:
            if self._closing or self._pointer is None:
                raise KeychainClosed("the keychain is closed")
            self._calls += 1
            return self._pointer

    def __exit__(
        self,
        kind: Optional[Type[BaseException]],
        error: Optional[BaseException],
        traceback: Optional[TracebackType],
    ) -> None:
        """Ends a call; the last call out of a closed handle releases it."""
        with self._lock:
            self._calls -= 1
            pointer = self._take_if_idle()
        if pointer is not None:
            _ffi.kk_close(pointer)

    def close(self) -> None:
        """Closes the handle now, or when the running calls are done. Idempotent."""
        with self._lock:
            self._closing = True
            pointer = self._take_if_idle()
        if pointer is not None:
            _ffi.kk_close(pointer)

    def _take_if_idle(self) -> Optional[_ffi.KeychainPointer]:
        if not self._closing or self._calls or self._pointer is None:
            return None
        pointer, self._pointer = self._pointer, None
        return pointer


_OPEN_HANDLES: "weakref.WeakSet[Handle]" = weakref.WeakSet()


def _reset_handles_in_child() -> None:
    for handle in list(_OPEN_HANDLES):
        handle._after_fork_in_child()


os.register_at_fork(after_in_child=_reset_handles_in_child)
