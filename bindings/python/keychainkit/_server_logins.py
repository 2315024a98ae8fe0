# SPDX-License-Identifier: MIT
"""Server logins: passwords for an account on a host, stored as libsecret's
``org.gnome.keyring.NetworkPassword`` items (``kk_server_login_*``)."""

from __future__ import annotations

from ctypes import byref, c_size_t, c_void_p
from dataclasses import dataclass
from typing import List, Optional

from . import _ffi
from ._arguments import Value, encode_name, encode_value
from ._errors import InvalidArgument
from ._handle import Handle
from ._status import Status


@dataclass(frozen=True)
class ServerLogin:
    """What identifies a password for a server: ``account`` on ``server``,
    narrowed by the other fields when given (``None``: not part of the
    login). A lookup matches exactly: a field left ``None`` matches only
    items without it.

    Stored with the attributes of libsecret's network passwords (``server``,
    ``user``, ``protocol``, ``port``, ``object`` = the path, ``domain``,
    ``authtype``), so GNOME's Seahorse, ``secret-tool`` and git's
    ``git-credential-libsecret`` find them.
    """

    server: str
    account: str
    protocol: Optional[str] = None
    port: Optional[int] = None
    path: Optional[str] = None
    domain: Optional[str] = None
    authtype: Optional[str] = None

    def _to_c(self) -> _ffi.ServerLoginStruct:
        port = self.port
        if port is not None and (isinstance(port, bool) or not isinstance(port, int) or not 1 <= port <= 65535):
            raise InvalidArgument(f"the port must be an int from 1 to 65535, not {port!r}")

        def optional(value: Optional[str], what: str) -> Optional[bytes]:
            return None if value is None else encode_name(value, what)

        return _ffi.ServerLoginStruct(
            _ffi.SERVER_LOGIN_VERSION, encode_name(self.server, "server"), encode_name(self.account, "account"),
            optional(self.protocol, "protocol"), port or 0, optional(self.path, "path"),
            optional(self.domain, "domain"), optional(self.authtype, "authtype"))


class ServerLogins:
    """The server logins of a :class:`~keychainkit.Keychain` (its
    :attr:`~keychainkit.Keychain.server_logins`): on the Secret Service, in
    a file keychain, or in an in-memory keychain apart from its (service,
    account) items; a kernel keyring keychain raises
    :class:`InvalidArgument`::

        login = ServerLogin("mail.example.com", "alice", protocol="imap")
        kc.server_logins.set_password(login, "s3cret")
        kc.server_logins.password(login)                 # "s3cret"
        kc.server_logins.accounts("mail.example.com")    # ["alice"]
    """

    def __init__(self, handle: Handle) -> None:
        self._handle = handle

    def __repr__(self) -> str:
        return "<keychainkit.ServerLogins>"

    def password_bytes(self, login: ServerLogin) -> Optional[bytes]:
        """The password of exactly ``login``, as bytes; ``None`` when absent."""
        login_struct = login._to_c()
        value = c_void_p()
        length = c_size_t()
        with self._handle as pointer:
            status = _ffi.kk_server_login_get(pointer, byref(login_struct), byref(value), byref(length))
            try:
                if status == Status.ENOTFOUND:
                    return None
                if status != Status.OK:
                    raise _ffi.failure(status, _describe(login))
                return _ffi.take_secret("kk_server_login_get", value, length.value)
            finally:
                _ffi.kk_secret_free(value)

    def password(self, login: ServerLogin) -> Optional[str]:
        """The password of exactly ``login`` as text; ``None`` when absent or
        not valid UTF-8 (read those with :meth:`password_bytes`)."""
        data = self.password_bytes(login)
        try:
            return None if data is None else data.decode("utf-8")
        except UnicodeDecodeError:
            return None

    def set_password(self, login: ServerLogin, password: Value) -> None:
        """Stores ``password`` (``str`` as UTF-8, bytes-like as is) for
        ``login``, which is left with one item."""
        data = encode_value(password)
        login_struct = login._to_c()
        with self._handle as pointer:
            status = _ffi.kk_server_login_set(pointer, byref(login_struct), data, len(data))
        if status != Status.OK:
            raise _ffi.failure(status, _describe(login))

    def remove_password(self, login: ServerLogin) -> None:
        """Removes the password of exactly ``login``; absent is no error."""
        login_struct = login._to_c()
        with self._handle as pointer:
            status = _ffi.kk_server_login_remove(pointer, byref(login_struct))
        if status != Status.OK:
            raise _ffi.failure(status, _describe(login))

    def accounts(self, server: str) -> List[str]:
        """The accounts with a password on ``server`` (any protocol, port or
        path), sorted by their UTF-8 bytes. Reads no password."""
        server_name = encode_name(server, "server")
        names = _ffi.ACCOUNT_LIST()
        count = c_size_t()
        with self._handle as pointer:
            status = _ffi.kk_server_login_accounts(pointer, server_name, byref(names), byref(count))
            try:
                if status != Status.OK:
                    raise _ffi.failure(status, f"server {server!r}")
                return _ffi.read_list("kk_server_login_accounts", names, count.value)
            finally:
                _ffi.kk_list_free(names)


def _describe(login: ServerLogin) -> str:
    """The login's names for an error message (never a password)."""
    return f"server {login.server!r}, account {login.account!r}"
