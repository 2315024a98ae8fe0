# SPDX-License-Identifier: MIT
"""The route from the C library's observer callbacks to Python callables.

Two C function pointers serve every observer: :data:`on_change` and
:data:`on_destroy` live as long as the module, so C never calls a freed
thunk. The ``userdata`` passed to C is a small integer naming a
:class:`Registration`; a keychain holds its registrations strongly, this
module only weakly, so an abandoned keychain (and whatever its callbacks
captured) can still be garbage-collected. ``on_destroy``, which C calls
exactly once per observer, drops the registration.
"""

from __future__ import annotations

import itertools
import threading
import weakref
from typing import Any, Callable, Dict, MutableMapping, Optional

from ._events import ChangeEvent
from ._ffi import DESTROY, OBSERVER

Callback = Callable[[ChangeEvent], object]

_routes: Dict[int, "weakref.ReferenceType[Registration]"] = {}
_lock = threading.Lock()
_ids = itertools.count(1)


class Registration:
    """A callback registered with the C library, held by its keychain in
    ``owner`` (a dict keyed by :attr:`id`) until retired."""

    __slots__ = ("id", "callback", "owner", "__weakref__")

    def __init__(self, callback: Callback, owner: MutableMapping[int, "Registration"]) -> None:
        with _lock:
            self.id = next(_ids)
            _routes[self.id] = weakref.ref(self)
        self.callback = callback
        self.owner = owner
        owner[self.id] = self

    def retire(self) -> None:
        """Drops every reference the binding holds to this registration."""
        with _lock:
            _routes.pop(self.id, None)
        self.owner.pop(self.id, None)


def _lookup(userdata: Optional[int]) -> Optional[Registration]:
    reference = _routes.get(userdata or 0)
    return None if reference is None else reference()


def _deliver(event: int, service: Optional[bytes], account: Optional[bytes], status: int, userdata: Optional[int]) -> None:
    """Delivers one C notification to its Python callback.

    An exception raised by the callback propagates to ctypes, which reports
    it through :func:`sys.unraisablehook` and returns to C normally.
    """
    registration = _lookup(userdata)
    if registration is not None:
        registration.callback(ChangeEvent.from_c(event, service, account, status))


def _destroy(userdata: Optional[int]) -> None:
    """C's ``destroy``: the observer is gone, drop its registration."""
    with _lock:
        reference = _routes.pop(userdata or 0, None)
    registration = None if reference is None else reference()
    if registration is not None:
        registration.retire()


on_change: Any = OBSERVER(_deliver)
"""The ``kk_observer`` passed to every ``kk_observe`` call."""

on_destroy: Any = DESTROY(_destroy)
"""The ``destroy`` passed to every ``kk_observe`` call."""
