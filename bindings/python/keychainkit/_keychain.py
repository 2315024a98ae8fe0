"""Keychain: the Pythonic face of a ``kk_keychain *``."""

from __future__ import annotations

import ctypes
import weakref
from ctypes import byref, c_size_t, c_uint64, c_void_p
from types import TracebackType
from typing import Any, Callable, Dict, Iterable, Mapping, NoReturn, Optional, Tuple, Type, Union

from . import _ffi
from ._arguments import Value, encode_name, encode_optional_name, encode_value
from ._errors import InvalidArgument, ItemNotFound, KeychainClosed, KeychainError
from ._events import ChangeEvent
from ._handle import Handle
from ._observation import Observation
from ._registry import Registration, on_change, on_destroy
from ._status import Status

_MISSING: Any = object()

ITERATION_UNSUPPORTED = (
    "a Keychain cannot be iterated or sized: the KeychainKit C library has no "
    "way to list items (a Secret Service collection is shared with every other "
    "program of the user). Look accounts up by name (in, [], get()) and keep "
    "your own list of the names you use."
)


class Keychain:
    """A handle on a keychain: the user's Secret Service, or an in-memory one.

    Behaves like a dict from account names (``str``) to secrets (``str``)
    within its default service::

        with Keychain(service="my-app") as kc:
            kc["token"] = "s3cret"        # insert or replace
            kc["token"]                   # "s3cret"; KeyError when absent
            "token" in kc                 # True
            kc.get("other", "fallback")   # default when absent
            del kc["token"]               # KeyError when absent

    Errors are never swallowed: a locked keychain raises
    :class:`InteractionNotAllowed` and a missing Secret Service
    :class:`ServiceUnavailable`, from ``get`` and ``in`` too; only "absent"
    is ``KeyError``/``None``/the default.

    It is not a :class:`collections.abc.MutableMapping`: the C library cannot
    list items, so ``iter()`` raises :class:`TypeError` and ``len()`` is not
    defined, and generic mapping code (``dict(kc)``, ``==``, ``keys()``) must
    not be handed one.

    Values are bytes underneath. ``str`` values are stored as UTF-8; bytes
    are stored as is (NUL bytes included). Through the ``str`` API (``[]``,
    ``in``, ``get``, :meth:`value`) a value that is not valid UTF-8 reads as
    absent; :meth:`value_bytes` returns it as is.

    Every method accepts ``service=None``, meaning the keychain's own
    ``service``, itself ``None`` by default: the library's default service,
    the program's name. A handle may be used from many threads; close it
    with :meth:`close` or a ``with`` block.
    """

    _handle: Handle
    _observers: Dict[int, Registration]

    def __init__(self, *, service: Optional[str] = None) -> None:
        """Opens the user's Secret Service. Connecting is deferred to the
        first operation, so this succeeds without a session bus; operations
        then raise :class:`ServiceUnavailable`."""
        self._open(_ffi.kk_open_secret_service, "secret-service", service)

    @classmethod
    def in_memory(cls, *, service: Optional[str] = None) -> "Keychain":
        """A new, empty, process-local keychain with the Secret Service's
        semantics, for tests. Each one has its own items."""
        keychain = cls.__new__(cls)
        keychain._open(_ffi.kk_open_memory, "memory", service)
        return keychain

    def _open(self, opener: Callable[[Any], int], backend: str, service: Optional[str]) -> None:
        self._service_name = encode_optional_name(service, "service")
        self._service = service
        self._backend = backend
        self._observers = {}
        self._handle = Handle(opener)
        self._finalizer = weakref.finalize(self, self._handle.close)

    # -- lifetime ----------------------------------------------------------

    def close(self) -> None:
        """Closes the keychain and unregisters its observers. Idempotent.

        Calls running on other threads (or up the stack, when called from a
        callback) finish first; the handle is released when the last one
        returns. Any use afterwards raises :class:`KeychainClosed`.
        """
        self._finalizer()

    @property
    def closed(self) -> bool:
        """Whether :meth:`close` was called."""
        return self._handle.closed

    def __enter__(self) -> "Keychain":
        """Returns the open keychain; ``with`` closes it on exit."""
        if self.closed:
            raise KeychainClosed("the keychain is closed")
        return self

    def __exit__(
        self,
        kind: Optional[Type[BaseException]],
        error: Optional[BaseException],
        traceback: Optional[TracebackType],
    ) -> None:
        """Closes the keychain (see :meth:`close`)."""
        self.close()

    @property
    def service(self) -> Optional[str]:
        """The default service of this keychain (``None``: the program's name)."""
        return self._service

    @property
    def backend(self) -> str:
        """``"secret-service"`` or ``"memory"``."""
        return self._backend

    def __repr__(self) -> str:
        state = "closed" if self.closed else "open"
        return f"<keychainkit.Keychain {self._backend} service={self._service!r} {state}>"

    # -- the explicit API (the Swift names) --------------------------------

    def value_bytes(self, account: str, service: Optional[str] = None) -> Optional[bytes]:
        """The value stored for the key, as bytes, or ``None`` when absent."""
        service_name, account_name = self._key(account, service)
        value = c_void_p()
        length = c_size_t()
        with self._handle as pointer:
            status = _ffi.kk_get(pointer, service_name, account_name, byref(value), byref(length))
            try:
                if status == Status.ENOTFOUND:
                    return None
                if status != Status.OK:
                    raise _ffi.failure(status, self._describe(account, service))
                if not value:
                    raise KeychainError("kk_get returned KK_OK without a value", Status.EUNKNOWN)
                return ctypes.string_at(value, length.value)
            finally:
                _ffi.kk_secret_free(value)

    def value(self, account: str, service: Optional[str] = None) -> Optional[str]:
        """The value stored for the key, as text, or ``None`` when absent or
        not valid UTF-8 (read those with :meth:`value_bytes`)."""
        data = self.value_bytes(account, service)
        if data is None:
            return None
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            return None

    def update_value(self, value: Value, account: str, service: Optional[str] = None) -> None:
        """Stores ``value`` for the key, replacing the current value or
        creating the item: ``str`` as UTF-8, bytes-like as is."""
        data = encode_value(value)
        service_name, account_name = self._key(account, service)
        with self._handle as pointer:
            status = _ffi.kk_set(pointer, service_name, account_name, data, len(data))
            if status != Status.OK:
                raise _ffi.failure(status, self._describe(account, service))

    def remove_value(self, account: str, service: Optional[str] = None) -> None:
        """Removes the key's item(s). Removing an absent item is not an error."""
        service_name, account_name = self._key(account, service)
        with self._handle as pointer:
            status = _ffi.kk_remove(pointer, service_name, account_name)
            if status != Status.OK:
                raise _ffi.failure(status, self._describe(account, service))

    # -- the mapping protocol ----------------------------------------------

    def __getitem__(self, account: str) -> str:
        """``kc[account]``: the text value; :class:`ItemNotFound` (a
        ``KeyError``) when absent or not valid UTF-8."""
        data = self.value_bytes(account)
        if data is None:
            raise ItemNotFound(f"no item for the key ({self._describe(account, None)})")
        try:
            return data.decode("utf-8")
        except UnicodeDecodeError:
            pass
        raise ItemNotFound(
            f"the value of the key ({self._describe(account, None)}) is not valid UTF-8 "
            "and reads as absent as text; use value_bytes()"
        )

    def __setitem__(self, account: str, value: Value) -> None:
        """``kc[account] = value``: see :meth:`update_value`."""
        self.update_value(value, account)

    def __delitem__(self, account: str) -> None:
        """``del kc[account]``: removes the item, whatever its value;
        :class:`ItemNotFound` when there was none."""
        if self.value_bytes(account) is None:
            raise ItemNotFound(f"no item for the key ({self._describe(account, None)})")
        self.remove_value(account)

    def __contains__(self, account: object) -> bool:
        """``account in kc``: whether ``kc[account]`` would return a value."""
        return self.value(account) is not None  # type: ignore[arg-type]

    def get(self, account: str, default: Any = None) -> Any:
        """The text value for ``account``, or ``default`` when absent (other
        failures raise)."""
        text = self.value(account)
        return default if text is None else text

    def pop(self, account: str, default: Any = _MISSING) -> Any:
        """Reads then removes the text value for ``account``; when absent,
        returns ``default`` or raises :class:`ItemNotFound`. Not atomic
        with respect to other writers."""
        text = self.value(account)
        if text is None:
            if default is _MISSING:
                raise ItemNotFound(f"no item for the key ({self._describe(account, None)})")
            return default
        self.remove_value(account)
        return text

    def update(self, other: Union[Mapping[str, Value], Iterable[Tuple[str, Value]]] = (), **values: Value) -> None:
        """Stores every (account, value) pair of ``other`` and ``values``, in order."""
        pairs = other.items() if isinstance(other, Mapping) else other
        for account, value in pairs:
            self[account] = value
        for account, value in values.items():
            self[account] = value

    def __iter__(self) -> NoReturn:
        """Always raises :class:`TypeError`: the library cannot list items."""
        raise TypeError(ITERATION_UNSUPPORTED)

    # -- observation -------------------------------------------------------

    def observe(
        self, account: str, callback: Callable[[ChangeEvent], object], service: Optional[str] = None
    ) -> Observation:
        """Calls ``callback(event)`` after every write or removal attempt of
        the key through this keychain (successful or not, equal value or
        not), on the thread that made it, before that call returns.

        The callback may use the keychain, cancel its own observation or
        close the keychain. An exception it raises is reported through
        :func:`sys.unraisablehook` and does not reach the writer. The
        callback stays registered until :meth:`Observation.cancel` or
        :meth:`close`, even when the returned handle is dropped.
        """
        if not callable(callback):
            raise InvalidArgument(f"the callback must be callable, not {type(callback).__name__}")
        service_name, account_name = self._key(account, service)
        registration = Registration(callback, self._observers)
        token = c_uint64()
        try:
            with self._handle as pointer:
                status = _ffi.kk_observe(
                    pointer, service_name, account_name, on_change, registration.id, on_destroy, byref(token)
                )
                if status != Status.OK:
                    raise _ffi.failure(status, self._describe(account, service))
        except BaseException:
            registration.retire()
            raise
        return Observation(self, token.value, registration.id, service if service is not None else self._service, account)

    def _has_registration(self, registration_id: int) -> bool:
        return registration_id in self._observers and not self.closed

    def _unobserve(self, token: int) -> None:
        try:
            with self._handle as pointer:
                status = _ffi.kk_unobserve(pointer, token)
        except KeychainClosed:
            return  # closing removed every observer
        if status not in (Status.OK, Status.EINVAL):  # EINVAL: already removed
            raise _ffi.failure(status)

    # -- helpers -------------------------------------------------------------

    def _key(self, account: object, service: Optional[object]) -> Tuple[Optional[bytes], bytes]:
        account_name = encode_name(account, "account")
        if service is None:
            return self._service_name, account_name
        return encode_name(service, "service"), account_name

    def _describe(self, account: object, service: Optional[object]) -> str:
        service = self._service if service is None else service
        named = "the default service" if service is None else f"service {service!r}"
        return f"{named}, account {account!r}"
