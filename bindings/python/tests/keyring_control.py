"""Locking and unlocking the private test keyring over D-Bus (with jeepney).

Unlocking without a prompt uses gnome-keyring's internal
UnlockWithMasterPassword, whose secret must be encoded for a session
opened on the same connection.
"""

from __future__ import annotations

import os
from typing import Any

from jeepney import DBusAddress, new_method_call
from jeepney.io.blocking import open_dbus_connection
from jeepney.wrappers import unwrap_msg

BUS_NAME = "org.freedesktop.secrets"
ROOT = "/org/freedesktop/secrets"
LOGIN = "/org/freedesktop/secrets/collection/login"
SERVICE = DBusAddress(ROOT, bus_name=BUS_NAME, interface="org.freedesktop.Secret.Service")
INTERNAL = DBusAddress(ROOT, bus_name=BUS_NAME, interface="org.gnome.keyring.InternalUnsupportedGuiltRiddenInterface")
PROPERTIES = DBusAddress(LOGIN, bus_name=BUS_NAME, interface="org.freedesktop.DBus.Properties")


def _call(connection: Any, address: DBusAddress, method: str, signature: str, body: tuple) -> Any:
    return unwrap_msg(connection.send_and_get_reply(new_method_call(address, method, signature, body), timeout=10))


def lock() -> None:
    """Locks the login collection (what the default alias points to)."""
    with open_dbus_connection(bus="SESSION") as connection:
        _call(connection, SERVICE, "Lock", "ao", ([LOGIN],))


def unlock() -> None:
    """Unlocks the login collection with KEYCHAINKIT_TEST_KEYRING_PASSWORD."""
    password = os.environ["KEYCHAINKIT_TEST_KEYRING_PASSWORD"].encode()
    with open_dbus_connection(bus="SESSION") as connection:
        _output, session = _call(connection, SERVICE, "OpenSession", "sv", ("plain", ("s", "")))
        _call(connection, INTERNAL, "UnlockWithMasterPassword", "o(oayays)", (LOGIN, (session, b"", password, "text/plain")))


def is_locked() -> bool:
    """Whether the login collection is locked."""
    with open_dbus_connection(bus="SESSION") as connection:
        (_signature, value), = _call(connection, PROPERTIES, "Get", "ss", ("org.freedesktop.Secret.Collection", "Locked"))
        return bool(value)
