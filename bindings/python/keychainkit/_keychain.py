# SPDX-License-Identifier: MIT
"""Keychain: the Pythonic face of a ``kk_keychain *``."""

from __future__ import annotations

import functools
import os
import weakref
from collections.abc import ItemsView, KeysView, Mapping, MutableMapping, ValuesView
from ctypes import Array, byref, c_char_p, c_int, c_size_t, c_ubyte, c_uint64, c_void_p, memset
from types import TracebackType
from typing import TYPE_CHECKING, Any, Callable, Dict, Iterable, Iterator, List, Optional, Tuple, Type, Union, cast

from . import _ffi
from ._arguments import Value, encode_name, encode_value
from ._default_service import default_service
from ._errors import InvalidArgument, ItemNotFound, KeychainClosed, KeychainError
from ._events import ChangeEvent
from ._handle import Handle
from ._observation import Observation
from ._registry import Registration, on_change, on_destroy
from ._secret_buffer import SecretBuffer
from ._server_logins import ServerLogins
from ._status import Status

if TYPE_CHECKING:
    from _typeshed import SupportsKeysAndGetItem

_MISSING: Any = object()

_NOT_WRITTEN = 1
"""A status no ``kk_status`` has: an entry ``kk_get_many`` left unwritten."""


def _milliseconds(seconds: Optional[float], name: str) -> int:
    """A timeout option in whole milliseconds for C; 0 (the default) for ``None``."""
    if seconds is None:
        return 0
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)):
        raise InvalidArgument(f"{name} must be a number of seconds, not {type(seconds).__name__}")
    milliseconds = round(seconds * 1000)
    if not 1 <= milliseconds <= 0xFFFFFFFF:
        raise InvalidArgument(f"{name} must be between 0.001 and {0xFFFFFFFF // 1000} seconds, not {seconds!r}")
    return milliseconds


def _prompt_policy(prompts: str) -> int:
    """The ``kk_prompt_policy`` named ``prompts``."""
    policy = _ffi.PROMPT_POLICIES.get(prompts) if isinstance(prompts, str) else None
    if policy is None:
        names = ", ".join(repr(name) for name in _ffi.PROMPT_POLICIES)
        raise InvalidArgument(f"prompts must be one of {names}, not {prompts!r}")
    return policy


def _file_path(path: object) -> Optional[bytes]:
    """``path`` (``str``, ``bytes`` or :class:`os.PathLike`) as the bytes of
    ``kk_file_options.path``; ``None`` stays ``None`` (the default file)."""
    if path is None:
        return None
    try:
        name = os.fspath(path)  # type: ignore[arg-type]
    except TypeError:
        raise InvalidArgument(f"path must be a str or os.PathLike, not {type(path).__name__}") from None
    if isinstance(name, bytes):
        if b"\0" in name:
            raise InvalidArgument(f"the path {name!r} contains a NUL byte")
        return name
    return encode_name(name, "path")


def _secret_copy(secret: object, what: str) -> SecretBuffer:
    """A copy of ``secret`` (``what``: "master secret", "password") in a
    buffer of secret memory, for the caller to close (wiping it) once the C
    call has returned.

    ``str`` is encoded as UTF-8 (an intermediate ``bytes`` that Python
    cannot wipe); bytes-like objects are copied straight into the buffer.
    The buffer holds at least one byte, so its address is never NULL, even
    for an empty secret. Errors neither quote the secret nor chain an
    exception that holds it.
    """
    data: Union[bytes, memoryview]
    if isinstance(secret, str):
        position = -1
        try:
            data = secret.encode("utf-8")
        except UnicodeEncodeError as error:
            position = error.start
        if position >= 0:
            raise InvalidArgument(f"the {what} is not valid Unicode text (lone surrogate at index {position})")
    elif isinstance(secret, (bytes, bytearray, memoryview)):
        data = memoryview(secret)
        if not data.c_contiguous:
            raise InvalidArgument(f"a memoryview {what} must be C-contiguous")
    else:
        raise InvalidArgument(f"the {what} must be str or bytes-like, not {type(secret).__name__}")
    return SecretBuffer(data)


class Keychain(MutableMapping[str, str]):
    """A handle on a keychain: the user's Secret Service, the kernel keyring
    (:meth:`kernel_keyring`), an encrypted file (:meth:`file`), or an
    in-memory one.

    A :class:`collections.abc.MutableMapping` from account names (``str``)
    to secrets (``str``) within its default service::

        with Keychain(service="my-app") as kc:
            kc["token"] = "s3cret"        # insert or replace
            kc["token"]                   # "s3cret"; KeyError when absent
            "token" in kc                 # True
            kc.get("other", "fallback")   # default when absent
            list(kc), len(kc)             # the service's accounts, sorted
            del kc["token"]               # KeyError when absent

    Errors are never swallowed: a locked keychain raises
    :class:`InteractionNotAllowed` and a missing Secret Service
    :class:`ServiceUnavailable`, from ``get``, ``in``, ``iter()`` and
    ``len()`` too; only "absent" is ``KeyError``/``None``/the default.
    Listing reads no value, so it works while the keychain is locked.

    Iteration lists the accounts of the service at the time of the call
    (:meth:`accounts`), sorted by their UTF-8 bytes. Each iteration of
    ``items()`` or ``values()`` lists the accounts and reads all their
    values in one call (:meth:`get_many_bytes`): a snapshot taken when the
    iteration starts, two calls of the library whatever the number of
    items. ``kc[account]`` always reads afresh, so ``dict(kc)`` (a listing,
    then ``kc[account]`` for each account) makes one call per account;
    ``dict(kc.items())`` reads every value in one call.
    ``bool(kc)`` is always ``True`` (an open handle, even when empty): it
    never queries the keychain.

    Values are bytes underneath. ``str`` values are stored as UTF-8; bytes
    are stored as is (NUL bytes included). Through the ``str`` API (``[]``,
    ``in``, ``get``, :meth:`value`) a value that is not valid UTF-8 reads as
    absent; :meth:`value_bytes` returns it as is. Such an account is still
    listed by ``iter()``, ``len()`` and ``keys()`` (it exists), so
    ``values()``, ``items()``, ``dict(kc)``, ``==`` and :meth:`popitem`
    raise :class:`ItemNotFound` (a ``KeyError``) when they reach it;
    :meth:`clear` removes it like any other. :meth:`get_many` reads it as
    ``None``, as :meth:`value` does.

    Every method accepts ``service=None``, meaning the keychain's own
    ``service``. A keychain opened without one uses the running program's
    name (see :attr:`service`): the script's name without ``.py``, the
    module's name under ``python -m``, ``"python"`` for ``python -c`` and
    the interactive interpreter. A handle may be used from many threads; close it
    with :meth:`close` or a ``with`` block.
    """

    _handle: Handle
    _observers: Dict[int, Registration]

    __hash__ = None  # type: ignore[assignment]  # mutable, compared by content

    def __init__(
        self,
        *,
        service: Optional[str] = None,
        collection: Optional[str] = None,
        timeout: Optional[float] = None,
        prompts: str = "automatic",
        prompt_timeout: Optional[float] = None,
        require_encryption: bool = False,
    ) -> None:
        """Opens the user's keychain: the Secret Service — or, with none of
        the options below given, inside a Flatpak or Snap sandbox whose
        Secret portal answers, the app's portal-keyed file, as libsecret
        does (``kk_open_default``; :attr:`backend` says ``"file"`` then, and
        opening raises what :meth:`file` raises). Connecting to the Secret
        Service is deferred to the first operation, so this succeeds without
        a session bus; operations then raise :class:`ServiceUnavailable`.

        ``collection``: where new items go — an alias (``"default"``, the
        default, or ``"session"``, which the service does not persist) or a
        collection's D-Bus object path; reads look in every collection.
        ``timeout``: the bound on each operation (all its requests to the
        service together), in seconds (default ``KK_DEFAULT_TIMEOUT_MS``, 5 s). ``prompts``: whether operations may show the service's
        unlock prompt — ``"never"`` (a locked collection raises
        :class:`InteractionNotAllowed` at once), ``"allowed"`` (show it and
        wait for the user up to ``prompt_timeout`` seconds, default
        ``KK_DEFAULT_PROMPT_TIMEOUT_MS``, 120 s;
        dismissed raises :class:`UserCanceled`, unanswered
        :class:`InteractionNotAllowed`), or ``"automatic"`` (the default:
        allowed when ``DISPLAY`` or ``WAYLAND_DISPLAY`` is set). KeePassXC's
        confirmation prompts (every create and delete) are completed under
        any policy. ``require_encryption``: refuse a service that offers only
        unencrypted ("plain") transfer of secrets — every operation then
        raises :class:`AccessDenied` — instead of using it (the default, as
        libsecret does; :attr:`transfer_encrypted` tells). Raises
        :class:`InvalidArgument` for a bad option.
        """
        if not isinstance(require_encryption, bool):
            raise InvalidArgument(f"require_encryption must be a bool, not {type(require_encryption).__name__}")
        if (collection, timeout, prompts, prompt_timeout, require_encryption) == (None, None, "automatic", None, False):
            self._open(_ffi.kk_open_default, None, service)
            return
        options = _ffi.SecretServiceOptions(
            version=_ffi.SECRET_SERVICE_OPTIONS_VERSION,
            collection=None if collection is None else encode_name(collection, "collection"),
            timeout_ms=_milliseconds(timeout, "timeout"),
            prompts=_prompt_policy(prompts),
            prompt_timeout_ms=_milliseconds(prompt_timeout, "prompt_timeout"),
            transfer=_ffi.TRANSFER_REQUIRE_ENCRYPTED if require_encryption else _ffi.TRANSFER_PREFER_ENCRYPTED,
        )
        self._open(lambda out: _ffi.kk_open_secret_service_with(byref(options), out), "secret-service", service)

    @classmethod
    def in_memory(cls, *, service: Optional[str] = None, sharing: Optional["Keychain"] = None) -> "Keychain":
        """A process-local keychain with the Secret Service's semantics, for
        tests. Nothing is persisted.

        Without ``sharing``, a new, empty keychain with items of its own.
        With ``sharing=other`` (an open in-memory keychain), another handle
        on ``other``'s items: each reads what the other writes, and
        observers of one hear the other's writes as ``"changed"`` and
        ``"deleted"`` events, as two keychains on the Secret Service hear
        each other (see :meth:`observe`). The items live while any keychain
        sharing them is open; each is closed on its own. ``service`` is this
        keychain's own default service, whatever ``other``'s is.

        Raises :class:`InvalidArgument` when ``sharing`` is not a
        :class:`Keychain` or is a Secret Service one, and
        :class:`KeychainClosed` (an :class:`InvalidArgument`) when it is
        closed.
        """
        keychain = cls.__new__(cls)
        if sharing is None:
            keychain._open(_ffi.kk_open_memory, "memory", service)
            return keychain
        if not isinstance(sharing, Keychain):
            raise InvalidArgument(f"sharing must be an in-memory Keychain, not {type(sharing).__name__}")
        if sharing.backend != "memory":
            raise InvalidArgument(f"sharing must be an in-memory Keychain, not a {sharing.backend} one")
        with sharing._handle as other:
            keychain._open(lambda out: _ffi.kk_open_memory_shared(other, out), "memory", service)
        return keychain

    @classmethod
    def kernel_keyring(cls, *, service: Optional[str] = None, keyring: str = "persistent") -> "Keychain":
        """A keychain in the Linux kernel keyring, for machines with no
        Secret Service (servers, containers, SSH and CI sessions). Chosen
        explicitly: never a fallback.

        ``keyring`` is ``"persistent"`` (the default: the user's persistent
        keyring, seen by all the user's processes across sessions, expiring
        after ``/proc/sys/kernel/keys/persistent_keyring_expiry`` seconds
        unused), ``"user"`` (the user keyring, while any process of the user
        runs) or ``"session"`` (the session keyring of this login session).
        Nothing survives a reboot.

        Each item is a "user" key described
        ``keychainkit:<bytes of service>:<service>:<account>``, holding the
        value as is: 1 to 32767 bytes (an empty or larger value raises
        :class:`InvalidArgument`, never truncated). A full per-user key quota
        (``/proc/sys/kernel/keys/maxbytes``, 20000 bytes by default for
        users other than root) raises :class:`KeychainError` saying so;
        ``EACCES`` :class:`AccessDenied`; a seccomp filter forbidding
        ``keyctl`` (Docker's default profile) :class:`ServiceUnavailable`.
        Observers hear this keychain's own writes only: the kernel announces
        no changes. Raises :class:`InvalidArgument` for another ``keyring``.
        """
        which = _ffi.KERNEL_KEYRINGS.get(keyring) if isinstance(keyring, str) else None
        if which is None:
            names = ", ".join(repr(name) for name in _ffi.KERNEL_KEYRINGS)
            raise InvalidArgument(f"keyring must be one of {names}, not {keyring!r}")
        keychain = cls.__new__(cls)
        keychain._open(lambda out: _ffi.kk_open_kernel_keyring_in(which, out), "kernel", service)
        return keychain

    @classmethod
    def file(
        cls,
        path: Union[str, bytes, "os.PathLike[str]", None] = None,
        *,
        service: Optional[str] = None,
        master: Optional[Value] = None,
        master_fd: Optional[int] = None,
        credential: bool = False,
        portal: bool = False,
        cache_master: bool = False,
        lock_timeout: Optional[float] = None,
    ) -> "Keychain":
        """A keychain in an encrypted file, for machines with no Secret
        Service (servers, CI, containers) whose items must survive a reboot.
        Chosen explicitly: never a fallback.

        ``path``: the keyring file (``str``, :class:`os.PathLike` or bytes);
        ``None`` means ``$XDG_DATA_HOME/keychainkit/default.keyring``
        (``~/.local/share/keychainkit/default.keyring``). Its directory is
        created (mode 0700) at the first write; the file is written with
        mode 0600. The format is libsecret's file backend's (libsecret >=
        0.20.2, oo7), keyed by the attributes ``service`` and ``username``
        as on the Secret Service, so ``SECRET_BACKEND=file
        SECRET_FILE_TEST_PATH=<path> SECRET_FILE_TEST_PASSWORD=<master>
        secret-tool lookup service S username A`` finds these items, and
        they find its.

        The file's key is derived from a master secret, from at most one of:

        - ``master``: the secret itself, ``str`` (taken as UTF-8) or
          bytes-like (any bytes), 1 to 4096 bytes — libsecret's
          ``SECRET_FILE_TEST_PASSWORD``. It is copied into a buffer that is
          wiped as soon as the library has taken it; wiping the object
          passed is the caller's business (Python cannot wipe a ``str``);
        - ``master_fd``: a file descriptor (a pipe, a file, standard input)
          read to its end: at most 4096 bytes, within 5 seconds, the bytes as
          they are (a final newline is part of the secret). Not closed;
        - ``credential=True``: the systemd credential ``keychainkit.master``
          (``$CREDENTIALS_DIRECTORY/keychainkit.master``, as
          ``LoadCredentialEncrypted=keychainkit.master:<file>`` provides it);
        - ``portal=True``: the app's secret from xdg-desktop-portal's Secret
          portal, as libsecret gets it inside Flatpak or Snap (64 bytes the
          portal keeps in the user's keyring, one per app);
        - none of them: the first source found: the systemd credential, else
          inside a Flatpak or Snap sandbox the portal. In a sandbox the
          default ``path`` is libsecret's ``$XDG_DATA_HOME/keyrings/default.keyring``;
          outside, last, a copy an earlier ``cache_master=True`` open kept.

        ``cache_master=True``: once the secret opens the file, keep a copy in
        the user's persistent kernel keyring (until reboot, or 3 days
        unused), which the automatic source of later opens reads; best
        effort, and a cached copy that no longer opens the file is forgotten.

        There is no fallback: a source that yields no secret raises
        :class:`NoMasterKey`. The file is read at once if it exists: a
        master secret that opens none of its items raises
        :class:`WrongMasterKey` (an empty or new file accepts any secret), a
        damaged file, not a keyring file, or one with weak key parameters
        :class:`CorruptStore`, a file that is not the user's or that others
        may read or write :class:`AccessDenied` (``chmod 600`` it). In each
        case nothing is written, and the message says what and where —
        never the secret.

        Reads come from memory while the file is unchanged and read it again
        when another process changed it. Each write waits at most
        ``lock_timeout`` seconds (default ``KK_DEFAULT_TIMEOUT_MS``, 5 s)
        for another process's write, and replaces the file atomically and
        durably. Observers (:meth:`observe`) hear changes made by other
        keychains and processes (libsecret's too). :attr:`server_logins`
        are stored in the file too.

        Raises :class:`InvalidArgument` for a bad option, or more than one
        master secret source, before the library is called.
        """
        for name, flag in (("credential", credential), ("portal", portal), ("cache_master", cache_master)):
            if not isinstance(flag, bool):
                raise InvalidArgument(f"{name} must be a bool, not {type(flag).__name__}")
        given = {
            "master": master is not None, "master_fd": master_fd is not None, "credential": credential, "portal": portal,
        }
        sources = [name for name, chosen in given.items() if chosen]
        if len(sources) > 1:
            raise InvalidArgument(f"give at most one master secret source, not {' and '.join(sources)}")
        if master_fd is not None and (
            isinstance(master_fd, bool) or not isinstance(master_fd, int) or not 0 <= master_fd <= 0x7FFFFFFF
        ):
            shown = master_fd if isinstance(master_fd, int) else type(master_fd).__name__
            raise InvalidArgument(f"master_fd must be a file descriptor (an int >= 0), not {shown}")
        options = _ffi.FileOptions(
            version=_ffi.FILE_OPTIONS_VERSION,
            path=_file_path(path),
            master_source=_ffi.MASTER_SOURCES["automatic"],
            master=None,
            master_len=0,
            master_fd=-1,
            lock_timeout_ms=_milliseconds(lock_timeout, "lock_timeout"),
            flags=_ffi.FILE_CACHE_MASTER if cache_master else 0,
        )
        if master_fd is not None:
            options.master_source = _ffi.MASTER_SOURCES["fd"]
            options.master_fd = master_fd
        elif credential:
            options.master_source = _ffi.MASTER_SOURCES["credential"]
        elif portal:
            options.master_source = _ffi.MASTER_SOURCES["portal"]
        buffer: Optional[SecretBuffer] = None
        if master is not None:
            buffer = _secret_copy(master, "master secret")
            options.master_source = _ffi.MASTER_SOURCES["secret"]
            options.master = buffer.array
            options.master_len = buffer.length

        def wipe() -> None:
            if buffer is not None:
                options.master = None
                buffer.close()

        def open_file(out: Any) -> int:
            try:
                return int(_ffi.kk_open_file(byref(options), out))
            finally:
                wipe()  # the library has its own copy

        keychain = cls.__new__(cls)
        try:
            keychain._open(open_file, "file", service)
        finally:
            wipe()  # also when the open never happened (a bad service)
        return keychain

    def _open(self, opener: Callable[[Any], int], backend: Optional[str], service: Optional[str]) -> None:
        """Opens the handle; ``backend`` ``None``: the one the library chose."""
        self._service: str = default_service() if service is None else service
        self._service_name = encode_name(self._service, "service")
        self._observers = {}
        self._handle = Handle(opener)
        self._finalizer = weakref.finalize(self, self._handle.close)
        if backend is None:
            name = c_char_p()
            with self._handle as pointer:
                _ffi.kk_backend_of(pointer, byref(name))
            backend = (name.value or b"").decode()
        self._backend = backend

    # -- lifetime ----------------------------------------------------------

    def close(self) -> None:
        """Closes the keychain and unregisters its observers. Idempotent.

        Calls running on other threads (or up the stack, when called from a
        callback) finish first; the handle is released when the last one
        returns. Releasing it ends the keychain's delivery thread (see
        :meth:`observe`) and waits for a callback running there, unless
        called from that callback. Any use afterwards raises
        :class:`KeychainClosed`.
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
    def service(self) -> str:
        """The default service of this keychain: the ``service`` it was
        opened with, or else the running Python program's name —
        ``"tool"`` for ``python tool.py``, ``./tool.py`` or an installed
        console script ``tool``; ``"package.module"`` for ``python -m
        package.module`` (``"package"`` for ``python -m package``);
        ``"python"`` for ``python -c`` and the interactive interpreter.
        Never the interpreter's name, which every script would share."""
        return self._service

    @property
    def server_logins(self) -> ServerLogins:
        """The passwords of server logins (:class:`ServerLogin`) in this
        keychain: see :class:`ServerLogins`."""
        return ServerLogins(self._handle)

    @property
    def transfer_encrypted(self) -> bool:
        """Whether secrets cross the session bus encrypted (a Secret Service
        keychain; connects first if needed): ``False`` when the service
        offers only plain transfer and ``require_encryption`` was not set.
        Raises :class:`InvalidArgument` for other backends (nothing of
        theirs crosses a bus), and what connecting raises."""
        encrypted = c_int()
        with self._handle as pointer:
            status = _ffi.kk_transfer_encrypted(pointer, byref(encrypted))
        if status != Status.OK:
            raise _ffi.failure(status, "asking how secrets cross the bus")
        return bool(encrypted.value)

    def unlock(self, password: Optional[Value] = None, collection: Optional[str] = None) -> None:
        """Unlocks a collection of this Secret Service keychain with its
        ``password`` and no dialog, as :c:func:`kk_unlock` does (see the
        header): through gnome-keyring's private interface, which
        gnome-keyring and oo7-daemon offer; elsewhere, or with no
        ``password``, the service's own unlock prompt if ``prompts`` allows.
        ``collection`` is an alias (``"default"``), a collection's name
        (``"login"``) or object path; ``None``: this keychain's.

        The password is text (sent as UTF-8) or bytes-like; a ``bytearray``
        is overwritten with zeros before this returns (``str`` and ``bytes``
        cannot be: Python keeps those). Raises :class:`WrongMasterKey` when
        the service refused the password (the collection stays locked),
        :class:`ItemNotFound` when there is no such collection,
        :class:`InteractionNotAllowed` when no password is taken and no
        prompt allowed, :class:`InvalidArgument` for another backend."""
        name = None if collection is None else encode_name(collection, "collection")
        copy: Optional[SecretBuffer] = None
        if isinstance(password, bytearray) and password:
            # The C library wipes it in place.
            buffer: "Optional[Array[c_ubyte]]" = (c_ubyte * len(password)).from_buffer(password)
            length = len(password)
        elif password is None:
            buffer, length = None, 0
        else:
            copy = _secret_copy(password, "password")
            buffer, length = copy.array, copy.length
        try:
            with self._handle as pointer:
                status = _ffi.kk_unlock(pointer, name, buffer, length)
        finally:
            if buffer is not None:
                memset(buffer, 0, length)
            del buffer
            if copy is not None:
                copy.close()
        if status != Status.OK:
            raise _ffi.failure(status, "unlocking the collection")

    def lock(self, collection: Optional[str] = None) -> None:
        """Locks a collection of this Secret Service keychain (named as for
        :meth:`unlock`; ``None``: this keychain's), as :c:func:`kk_lock`
        does. Raises :class:`ItemNotFound` when there is no such collection,
        :class:`InvalidArgument` for another backend."""
        name = None if collection is None else encode_name(collection, "collection")
        with self._handle as pointer:
            status = _ffi.kk_lock(pointer, name)
        if status != Status.OK:
            raise _ffi.failure(status, "locking the collection")

    @property
    def backend(self) -> str:
        """``"secret-service"``, ``"kernel"``, ``"file"`` or ``"memory"``."""
        return self._backend

    @property
    def persistence(self) -> str:
        """How long this keychain's items last, decided from the keychain
        alone (no I/O), so a program can refuse a store that will forget:

        - ``"persistent"``: on disk, surviving logout and reboot (a Secret
          Service collection other than ``"session"``; :meth:`file`);
        - ``"until reboot"``: in the kernel until the machine restarts
          (:meth:`kernel_keyring` ``"persistent"``);
        - ``"until logout"``: until the user's session or last process ends
          (the ``"session"`` collection; the ``"user"`` and ``"session"``
          kernel keyrings);
        - ``"until close"``: in this process, until the last keychain on the
          items is closed (:meth:`in_memory`).
        """
        persistence = c_int()
        with self._handle as pointer:
            status = _ffi.kk_persistence_of(pointer, byref(persistence))
            if status != Status.OK:
                raise _ffi.failure(status, "asking how long the items last")
        name = _ffi.PERSISTENCES.get(persistence.value)
        if name is None:
            raise KeychainError(f"kk_persistence_of returned an unknown value {persistence.value}", Status.EUNKNOWN)
        return name

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
                return _ffi.take_secret("kk_get", value, length.value)
            finally:
                _ffi.kk_secret_free(value)

    def contains(self, account: str, service: Optional[str] = None) -> bool:
        """Whether an item exists for the key, decided without reading its
        value (no secret enters this process). An item in a locked
        collection exists, and so does a value that is not valid UTF-8."""
        service_name, account_name = self._key(account, service)
        with self._handle as pointer:
            status = _ffi.kk_exists(pointer, service_name, account_name)
        if status == Status.ENOTFOUND:
            return False
        if status != Status.OK:
            raise _ffi.failure(status, self._describe(account, service))
        return True

    def value(self, account: str, service: Optional[str] = None) -> Optional[str]:
        """The value stored for the key, as text, or ``None`` when absent or
        not valid UTF-8 (read those with :meth:`value_bytes`)."""
        return _text(self.value_bytes(account, service))

    def get_many_bytes(self, accounts: Iterable[str], service: Optional[str] = None) -> Dict[str, Optional[bytes]]:
        """The values of many accounts of one service, as bytes, read in one
        call (``kk_get_many``): ``{account: value_bytes(account, service)}``
        for each account in order, ``None`` when absent.

        ``accounts`` is any iterable of ``str`` (not a ``str`` itself); an
        account given twice is read once, and the dict holds it once. Every
        account is checked as :meth:`value_bytes` checks it, before the
        library is called: a bad one raises :class:`InvalidArgument`, and so
        does a bad ``service``. An empty ``accounts`` returns ``{}`` without
        calling the library.

        A failure is never an absence: when an account cannot be read (its
        item locked: :class:`InteractionNotAllowed`; the unlock prompt
        dismissed: :class:`UserCanceled`; no service:
        :class:`ServiceUnavailable`; ...), this raises what
        :meth:`value_bytes` would raise for the first such account, and
        returns nothing. On the Secret Service the batch is one search of
        the service and one transfer of the secrets, so its cost grows with
        the items of the service: for a few accounts of a service of
        thousands of items, call :meth:`value_bytes` for each.
        """
        service_name, names = self._keys(accounts, service)
        if not names:
            return {}
        listed = list(names)
        values, error = self._read_many(
            service_name, list(names.values()), lambda index: self._describe(listed[index], service)
        )
        if error is not None:
            raise error
        return dict(zip(listed, values))

    def get_many(self, accounts: Iterable[str], service: Optional[str] = None) -> Dict[str, Optional[str]]:
        """The text values of many accounts of one service, read in one call:
        ``{account: value(account, service)}`` for each account in order,
        ``None`` for an absent account and for a value that is not valid
        UTF-8, as :meth:`value` (read those with :meth:`get_many_bytes`).
        Takes and raises what :meth:`get_many_bytes` does (a locked item is
        :class:`InteractionNotAllowed`, never ``None``)."""
        return {account: _text(data) for account, data in self.get_many_bytes(accounts, service).items()}

    def update_value(self, value: Value, account: str, service: Optional[str] = None) -> None:
        """Stores ``value`` for the key, replacing the current value or
        creating the item: ``str`` as UTF-8, bytes-like as is."""
        data = encode_value(value)
        service_name, account_name = self._key(account, service)
        with self._handle as pointer:
            status = _ffi.kk_set(pointer, service_name, account_name, data, len(data))
            if status != Status.OK:
                raise _ffi.failure(status, self._describe(account, service))

    def accounts(self, service: Optional[str] = None) -> List[str]:
        """The accounts that have an item in ``service`` (``None``: this
        keychain's own), sorted by their UTF-8 bytes. Reads no value, so it
        works while the keychain is locked. Canonically equivalent names
        (``"caf\\u00e9"``, ``"cafe\\u0301"``) are distinct accounts."""
        service_name = self._service_name if service is None else encode_name(service, "service")
        accounts = _ffi.ACCOUNT_LIST()
        count = c_size_t()
        with self._handle as pointer:
            status = _ffi.kk_list(pointer, service_name, byref(accounts), byref(count))
            try:
                if status != Status.OK:
                    raise _ffi.failure(status, self._describe_service(service))
                return _ffi.read_list("kk_list", accounts, count.value)
            finally:
                _ffi.kk_list_free(accounts)

    def remove_value(self, account: str, service: Optional[str] = None) -> None:
        """Removes the key's item(s). Removing an absent item is not an error."""
        service_name, account_name = self._key(account, service)
        with self._handle as pointer:
            status = _ffi.kk_remove(pointer, service_name, account_name)
            if status != Status.OK:
                raise _ffi.failure(status, self._describe(account, service))

    # -- the mapping protocol ----------------------------------------------

    def __getitem__(self, account: str) -> str:
        """``kc[account]``: the text value, read afresh (:meth:`value_bytes`);
        :class:`ItemNotFound` (a ``KeyError``) when absent or not valid
        UTF-8."""
        data = self.value_bytes(account)
        text = _text(data)
        if text is None:
            raise self._absent(account) if data is None else self._not_text(account)
        return text

    def __setitem__(self, account: str, value: Value) -> None:
        """``kc[account] = value``: see :meth:`update_value`."""
        self.update_value(value, account)

    def __delitem__(self, account: str) -> None:
        """``del kc[account]``: removes the item, whatever its value;
        :class:`ItemNotFound` when there was none."""
        if not self.contains(account):
            raise self._absent(account)
        self.remove_value(account)

    def __contains__(self, account: object) -> bool:
        """``account in kc``: whether an item exists for ``account`` (see
        :meth:`contains`), as ``list(kc)`` would list it. The value is not
        read: an item in a locked collection is in ``kc`` although reading it
        raises :class:`InteractionNotAllowed`."""
        return self.contains(account)  # type: ignore[arg-type]

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
                raise self._absent(account)
            return default
        self.remove_value(account)
        return text

    def update(
        self, other: Union["SupportsKeysAndGetItem[str, Value]", Iterable[Tuple[str, Value]]] = (), /, **values: Value
    ) -> None:
        """Stores every (account, value) pair of ``other`` (a mapping, an
        object with ``keys()``, or pairs) and ``values``, in order, as
        :meth:`dict.update` does."""
        pairs: Iterable[Tuple[str, Value]]
        if isinstance(other, Mapping):
            pairs = other.items()
        elif hasattr(other, "keys"):
            keyed = cast("SupportsKeysAndGetItem[str, Value]", other)
            pairs = ((account, keyed[account]) for account in keyed.keys())
        else:
            pairs = other
        for account, value in pairs:
            self[account] = value
        for account, value in values.items():
            self[account] = value

    def __iter__(self) -> Iterator[str]:
        """``iter(kc)``: over the accounts of this keychain's service, as
        listed once by :meth:`accounts` when iteration starts."""
        return iter(self.accounts())

    def __len__(self) -> int:
        """``len(kc)``: the number of accounts of this keychain's service."""
        return len(self.accounts())

    def __bool__(self) -> bool:
        """Always ``True``, even when empty: a keychain is a handle, and
        truth never queries it (use ``len(kc)`` for emptiness)."""
        return True

    def keys(self) -> KeysView[str]:
        """``kc.keys()``: a view of the accounts. Iterating it lists them
        once (:meth:`accounts`), when the iteration starts, and reads no
        value, as ``iter(kc)`` does (so it works while the keychain is
        locked).

        ``dict(kc)`` (and ``{**kc}``) iterate ``keys()``, then read each
        account with ``kc[account]``: one listing, then one call per
        account. ``dict(kc.items())`` reads every value in one call (see
        :meth:`items`).
        """
        return _KeysView(self)

    def items(self) -> ItemsView[str, str]:
        """``kc.items()``: a view of the (account, text value) pairs. Each
        iteration lists the accounts and reads all their values in one call
        (two calls of the library in all), when it starts, then goes over
        that snapshot. An account removed between the listing and the read
        is left out; a value that is not valid UTF-8 raises
        :class:`ItemNotFound`, a locked item :class:`InteractionNotAllowed`
        (see the class), before any pair is yielded. ``len()`` lists; ``(account,
        value) in kc.items()`` reads that one account."""
        return _ItemsView(self)

    def values(self) -> ValuesView[str]:
        """``kc.values()``: a view of the text values. Each iteration, and
        ``value in kc.values()``, goes over a snapshot as :meth:`items`
        does; ``len()`` lists."""
        return _ValuesView(self)

    def popitem(self) -> Tuple[str, str]:
        """Removes and returns the (account, text value) of the first account
        by bytes. :class:`ItemNotFound` when there is none, or when that
        account's value is not valid UTF-8 (the message tells which). Not
        atomic with respect to other writers."""
        accounts = self.accounts()
        if not accounts:
            raise ItemNotFound(f"no item in {self._describe_service(None)}")
        account = accounts[0]
        text = self[account]
        self.remove_value(account)
        return account, text

    def clear(self) -> None:
        """Removes every item of this keychain's service, text or not (the
        accounts listed when the call starts)."""
        for account in self.accounts():
            self.remove_value(account)

    # -- observation -------------------------------------------------------

    def observe(
        self, account: str, callback: Callable[[ChangeEvent], object], service: Optional[str] = None
    ) -> Observation:
        """Calls ``callback(event)`` (a :class:`ChangeEvent`) when the key
        changes, until the observation is cancelled or the keychain closed.

        What is reported, and when, is the C library's: ``kk_observe()`` in
        ``keychainkit.h``. In short: this keychain's own attempts as
        ``"set"`` or ``"remove"``, on the thread that made them, before that
        call returns; changes made elsewhere as ``"changed"`` or
        ``"deleted"``, on the keychain's *delivery thread* (a thread of the C
        library; ctypes takes the GIL for each call there). Returns once such
        changes are being listened for.

        What the binding adds: callbacks may run on several threads at once.
        A callback may use the keychain (read the new value, for instance),
        cancel its own observation, or close the keychain: :meth:`close`
        waits for a callback running on the delivery thread to return,
        except when called from that callback itself. So a callback must not
        wait for a thread that is closing the keychain. An exception a
        callback raises is reported through :func:`sys.unraisablehook`; it
        does not reach the writer nor stop the delivery thread, and the next
        callbacks still run. The callback stays registered until
        :meth:`Observation.cancel` or :meth:`close`, even when the returned
        handle is dropped.
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
        registration_id = registration.id  # not the registration: closing must free the callback
        return Observation(
            service if service is not None else self._service,
            account,
            registered=lambda: registration_id in self._observers and not self.closed,
            unregister=functools.partial(self._unobserve, token.value),
        )

    def _unobserve(self, token: int) -> None:
        try:
            with self._handle as pointer:
                status = _ffi.kk_unobserve(pointer, token)
        except KeychainClosed:
            return  # closing removed every observer
        if status not in (Status.OK, Status.EINVAL):  # EINVAL: already removed
            raise _ffi.failure(status)

    # -- helpers -------------------------------------------------------------

    def _keys(self, accounts: Iterable[str], service: Optional[str]) -> Tuple[bytes, Dict[str, bytes]]:
        """The service's bytes and each account's (in order, once each),
        checked as :meth:`_key` checks them."""
        if isinstance(accounts, (str, bytes, bytearray, memoryview)):
            raise InvalidArgument(f"accounts must be an iterable of str, not a {type(accounts).__name__}")
        try:
            iterator = iter(accounts)
        except TypeError:
            raise InvalidArgument(f"accounts must be an iterable of str, not {type(accounts).__name__}") from None
        names: Dict[str, bytes] = {}
        for account in iterator:
            names[account] = self._key(account, service)[1]
        return self._key("", service)[0], names

    def _read_many(
        self,
        service_name: bytes,
        names: List[bytes],
        describe: Callable[[int], str],
        keep_before_failure: bool = False,
    ) -> Tuple[List[Optional[bytes]], Optional[KeychainError]]:
        """``kk_get_many`` of ``names`` (at least one): the values (``None``
        when absent) of the accounts before the first one that could not be
        read, and that one's exception (``describe(index)`` names it), else
        ``None``. Without ``keep_before_failure`` no value is copied when an
        account failed. Every value the library returned is freed, whatever
        happens."""
        count = len(names)
        accounts = (c_char_p * count)(*names)
        values = (c_void_p * count)()
        lengths = (c_size_t * count)()
        statuses = (c_int * count)(*([_NOT_WRITTEN] * count))
        with self._handle as pointer:
            status = _ffi.kk_get_many(pointer, service_name, accounts, count, values, lengths, statuses)
            try:
                failed = next(
                    (index for index in range(count) if statuses[index] not in (Status.OK, Status.ENOTFOUND)), count
                )
                error: Optional[KeychainError] = None
                if status != Status.OK:
                    # The message describes the first failing account; when
                    # no entry says which, the call failed as a whole.
                    error = _ffi.failure(status, describe(0 if failed == count else failed))
                    if failed == count:
                        raise error
                elif failed < count:
                    raise KeychainError(
                        f"kk_get_many returned KK_OK but status {statuses[failed]} for entry {failed}", Status.EUNKNOWN
                    )
                if error is not None and not keep_before_failure:
                    return [], error
                return _ffi.take_secrets("kk_get_many", values, lengths, statuses, failed), error
            finally:
                _ffi.free_secrets(values, count)

    def _snapshot(self) -> List[Tuple[str, str]]:
        """The (account, text value) pairs of the service: one listing and
        one read of every listed account (see :meth:`items`)."""
        accounts = self.accounts()
        if not accounts:
            return []
        values, error = self._read_many(
            self._service_name,
            [account.encode("utf-8") for account in accounts],
            lambda index: self._describe(accounts[index], None),
            keep_before_failure=True,
        )
        pairs: List[Tuple[str, str]] = []
        for account, data in zip(accounts, values):
            if data is None:
                continue  # removed since it was listed
            text = _text(data)
            if text is None:
                raise self._not_text(account)
            pairs.append((account, text))
        if error is not None:
            raise error
        return pairs

    def _key(self, account: object, service: Optional[object]) -> Tuple[bytes, bytes]:
        account_name = encode_name(account, "account")
        if service is None:
            return self._service_name, account_name
        return encode_name(service, "service"), account_name

    def _describe_service(self, service: Optional[object]) -> str:
        return f"service {self._service if service is None else service!r}"

    def _describe(self, account: object, service: Optional[object]) -> str:
        return f"{self._describe_service(service)}, account {account!r}"

    def _not_text(self, account: object) -> ItemNotFound:
        """The error of a mapping access to a value that is not valid UTF-8
        (never quoting it)."""
        return ItemNotFound(
            f"the value of the key ({self._describe(account, None)}) is not valid UTF-8 "
            "and reads as absent as text; use value_bytes()"
        )

    def _absent(self, account: object) -> ItemNotFound:
        """The error of a mapping access to an absent ``account``, in the
        library's words for ``KK_ENOTFOUND``."""
        return ItemNotFound(f"{_ffi.status_string(Status.ENOTFOUND)} ({self._describe(account, None)})")


def _text(data: Optional[bytes]) -> Optional[str]:
    """``data`` as text; ``None`` when absent or not valid UTF-8 (leaving no
    exception that holds the bytes)."""
    if data is None:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


class _KeysView(KeysView[str]):
    """``kc.keys()``: see :meth:`Keychain.keys`. Its iterator is
    ``iter(kc)``'s, which lists when it is created."""

    __slots__ = ()
    _mapping: Keychain

    def __iter__(self) -> Iterator[str]:
        return iter(self._mapping)


class _ItemsView(ItemsView[str, str]):
    """``kc.items()``: see :meth:`Keychain.items`."""

    __slots__ = ()
    _mapping: Keychain

    def __iter__(self) -> Iterator[Tuple[str, str]]:
        return iter(self._mapping._snapshot())


class _ValuesView(ValuesView[str]):
    """``kc.values()``: see :meth:`Keychain.values`."""

    __slots__ = ()
    _mapping: Keychain

    def __iter__(self) -> Iterator[str]:
        return iter([text for _, text in self._mapping._snapshot()])

    def __contains__(self, value: object) -> bool:
        return any(text is value or text == value for text in self)
