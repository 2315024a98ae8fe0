# SPDX-License-Identifier: MIT
"""Locking and unlocking the private test keyring over D-Bus (with jeepney),
on each server the harnesses start (KEYCHAINKIT_TEST_SERVER).

Locking is the Secret Service's Lock, completing the prompt KeePassXC
returns for it. Unlocking needs no dialog: gnome-keyring's internal
UnlockWithMasterPassword (its secret encoded for a session opened on the
same connection), KWallet's Unlock prompt (the test wallet's password is
empty), KeePassXC's own openDatabase with the test database's password.
Both wait until the collection says so.
"""

from __future__ import annotations

import os
import signal
import time
from typing import Any, Dict, Iterator, List

from contextlib import contextmanager
from jeepney import DBusAddress, new_method_call
from jeepney.io.blocking import open_dbus_connection
from jeepney.wrappers import unwrap_msg

BUS_NAME = "org.freedesktop.secrets"
ROOT = "/org/freedesktop/secrets"
SERVICE = DBusAddress(ROOT, bus_name=BUS_NAME, interface="org.freedesktop.Secret.Service")
INTERNAL = DBusAddress(ROOT, bus_name=BUS_NAME, interface="org.gnome.keyring.InternalUnsupportedGuiltRiddenInterface")
KEEPASSXC = DBusAddress("/keepassxc", bus_name="org.keepassxc.KeePassXC.MainWindow",
                        interface="org.keepassxc.KeePassXC.MainWindow")


def server() -> str:
    """The server under test: "gnome-keyring", "kwallet" or "keepassxc"."""
    return os.environ.get("KEYCHAINKIT_TEST_SERVER") or "gnome-keyring"


def _call(connection: Any, address: DBusAddress, method: str, signature: str, body: tuple) -> Any:
    return unwrap_msg(connection.send_and_get_reply(new_method_call(address, method, signature, body), timeout=10))


@contextmanager
def _connection() -> Iterator[Any]:
    with open_dbus_connection(bus="SESSION") as connection:
        yield connection


def _default_collection(connection: Any) -> str:
    """The collection the default alias names. gnome-keyring answers "/"
    (no collection) for a moment while UnlockWithMasterPassword reloads
    it (seen once in six runs of the suite, under load): asked again
    until it names one, for 10 s at most."""
    deadline = time.monotonic() + 10
    while True:
        (path,) = _call(connection, SERVICE, "ReadAlias", "s", ("default",))
        if str(path) != "/" or time.monotonic() > deadline:
            return str(path)
        time.sleep(0.02)


def _prompt(connection: Any, prompt: str) -> None:
    if prompt != "/":
        address = DBusAddress(prompt, bus_name=BUS_NAME, interface="org.freedesktop.Secret.Prompt")
        _call(connection, address, "Prompt", "s", ("",))


def _wait_until_locked_is(want: bool) -> None:
    deadline = time.monotonic() + 10
    while is_locked() != want:
        if time.monotonic() > deadline:
            raise AssertionError(f"the default collection's Locked stayed {not want}")
        time.sleep(0.02)


def lock() -> None:
    """Locks the collection the default alias points to."""
    with _connection() as connection:
        _locked, prompt = _call(connection, SERVICE, "Lock", "ao", ([_default_collection(connection)],))
        _prompt(connection, prompt)
    _wait_until_locked_is(True)


def unlock() -> None:
    """Unlocks it without a dialog."""
    with _connection() as connection:
        collection = _default_collection(connection)
        if server() == "keepassxc":
            with open(os.environ["KEYCHAINKIT_TEST_KEEPASSXC_PASSWORD_FILE"]) as file:
                password = file.read().strip()
            _call(connection, KEEPASSXC, "openDatabase", "ss", (os.environ["KEYCHAINKIT_TEST_KEEPASSXC_DATABASE"], password))
        elif server() == "kwallet":
            _unlocked, prompt = _call(connection, SERVICE, "Unlock", "ao", ([collection],))
            _prompt(connection, prompt)
        else:
            secret = os.environ["KEYCHAINKIT_TEST_KEYRING_PASSWORD"].encode()
            _output, session = _call(connection, SERVICE, "OpenSession", "sv", ("plain", ("s", "")))
            _call(connection, INTERNAL, "UnlockWithMasterPassword", "o(oayays)", (collection, (session, b"", secret, "text/plain")))
    _wait_until_locked_is(False)


#: How a test can put the keyring in a locked state: "lock" (Lock() in a
#: running daemon, which keeps showing the items' attributes), and on
#: gnome-keyring "loaded-locked" (the daemon restarted, as after an SSH or
#: automatic login: attributes shown only hashed; see restart_locked).
LOCK_STATES: List[str] = ["lock", "loaded-locked"] if server() == "gnome-keyring" else ["lock"]


@contextmanager
def locked(state: str = "lock") -> Iterator[None]:
    """The default collection locked for the ``with`` block (checked), in
    one of LOCK_STATES, then unlocked again (checked), whatever the block
    raised."""
    restart_locked() if state == "loaded-locked" else lock()
    try:
        assert is_locked()
        yield
    finally:
        unlock()
    assert not is_locked()


def restart_locked() -> None:
    """gnome-keyring in the state most machines meet it in after a login
    that did not unlock it (SSH, autologin) or a crash: SIGKILLs the daemon
    that owns the name, has the bus activate a fresh one, which loads the
    keyring from disk locked (showing its items' attributes only hashed),
    and waits until the default collection says it is locked."""
    if server() != "gnome-keyring":
        raise AssertionError(f"restart_locked needs gnome-keyring, not {server()}")
    bus = DBusAddress("/org/freedesktop/DBus", bus_name="org.freedesktop.DBus", interface="org.freedesktop.DBus")

    def owned(connection: Any) -> bool:
        return bool(_call(connection, bus, "NameHasOwner", "s", (BUS_NAME,))[0])

    def wait_until_owned_is(connection: Any, want: bool) -> None:
        deadline = time.monotonic() + 10
        while owned(connection) != want:
            if time.monotonic() > deadline:
                raise AssertionError(f"{BUS_NAME} still {'has no owner' if want else 'owned'}")
            time.sleep(0.02)

    with _connection() as connection:
        (pid,) = _call(connection, bus, "GetConnectionUnixProcessID", "s", (BUS_NAME,))
        os.kill(pid, signal.SIGKILL)
        wait_until_owned_is(connection, False)
        _call(connection, bus, "StartServiceByName", "su", (BUS_NAME, 0))
        wait_until_owned_is(connection, True)
    _wait_until_locked_is(True)


def is_locked() -> bool:
    """Whether the collection the default alias points to is locked."""
    with _connection() as connection:
        properties = DBusAddress(_default_collection(connection), bus_name=BUS_NAME, interface="org.freedesktop.DBus.Properties")
        (_signature, value), = _call(connection, properties, "Get", "ss", ("org.freedesktop.Secret.Collection", "Locked"))
        return bool(value)


def items(attributes: Dict[str, str]) -> List[Dict[str, Any]]:
    """The items, locked or not, whose attributes include these, read over
    D-Bus: each as {"attributes": its attributes (xdg:schema included),
    "label": its label}."""
    found: List[Dict[str, Any]] = []
    with _connection() as connection:
        unlocked, locked = _call(connection, SERVICE, "SearchItems", "a{ss}", (attributes,))
        for path in unlocked + locked:
            properties = DBusAddress(path, bus_name=BUS_NAME, interface="org.freedesktop.DBus.Properties")
            (values,) = _call(connection, properties, "GetAll", "s", ("org.freedesktop.Secret.Item",))
            found.append({"attributes": dict(values["Attributes"][1]), "label": values["Label"][1]})
    return found
