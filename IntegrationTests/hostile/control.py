# SPDX-License-Identifier: MIT
"""The tests' side of the hostile fake Secret Service: its control object,
and a bus peer of our own that forges signals.

Runs inside scripts/with-fake-secret-service.sh (the session bus is the
fake's private one).
"""
from __future__ import annotations

from typing import Dict, List, Tuple

from jeepney import DBusAddress, MessageType, new_method_call, new_signal
from jeepney.io.blocking import open_dbus_connection
from jeepney.low_level import HeaderFields

SERVICE = "org.freedesktop.secrets"
COLLECTION_INTERFACE = "org.freedesktop.Secret.Collection"
SERVICE_INTERFACE = "org.freedesktop.Secret.Service"
CHANGES_INTERFACE = "io.github.keychainkit.Changes"

_CONTROL = DBusAddress("/io/github/keychainkit/FakeControl", bus_name=SERVICE,
                       interface="io.github.keychainkit.FakeControl")
_BUS = DBusAddress("/org/freedesktop/DBus", bus_name="org.freedesktop.DBus", interface="org.freedesktop.DBus")


class Fake:
    """The fake server's control object, over a connection of the test's own
    (which is also the forger: any peer may send any signal)."""

    def __init__(self) -> None:
        self.connection = open_dbus_connection(bus="SESSION")

    def close(self) -> None:
        self.connection.close()

    def _call(self, method: str, signature: str = "", *body: object) -> Tuple:
        reply = self.connection.send_and_get_reply(new_method_call(_CONTROL, method, signature, body), timeout=30)
        if reply.header.message_type == MessageType.error:
            raise RuntimeError(f"FakeControl.{method}: {reply.body}")
        return reply.body

    def set_mode(self, name: str, argument: str = "") -> None:
        self._call("SetMode", "ss", name, argument)

    def clear_modes(self) -> None:
        self._call("ClearModes")

    def reset(self) -> None:
        self._call("Reset")

    def stats(self) -> Dict[str, int]:
        return dict(self._call("Stats")[0])

    def items(self) -> List[Tuple[str, Dict[str, str]]]:
        return [(path, dict(attributes)) for path, attributes in self._call("Items")[0]]

    def path_of(self, **attributes: str) -> str:
        """The object path of the one item holding `attributes`."""
        paths = [path for path, held in self.items() if all(held.get(k) == v for k, v in attributes.items())]
        assert len(paths) == 1, (attributes, self.items())
        return paths[0]

    def set_modified(self, path: str, when: int) -> None:
        """Sets the Modified time of the item at `path` (seconds since the epoch)."""
        self._call("SetModified", "ot", path, when)

    def emit(self, kind: str, path: str, count: int = 1, padding: int = 0) -> None:
        """Signals sent by the fake itself: the service's current owner."""
        self._call("Emit", "ssuu", kind, path, count, padding)

    def emit_with_fds(self, count: int) -> None:
        self._call("EmitWithFds", "u", count)

    def owner(self) -> str:
        reply = self.connection.send_and_get_reply(new_method_call(_BUS, "GetNameOwner", "s", (SERVICE,)))
        return str(reply.body[0])

    def peers(self) -> List[str]:
        """The unique names on the bus but ours and the service's."""
        reply = self.connection.send_and_get_reply(new_method_call(_BUS, "ListNames"))
        skip = {self.owner(), self.connection.unique_name}
        return [name for name in reply.body[0] if name.startswith(":") and name not in skip]

    def forge_many(self, path: str, interface: str, member: str, arguments: List[str]) -> None:
        """Broadcasts `member(o argument)` from `path` as this peer, once per
        argument, then waits until the bus has routed them."""
        for argument in arguments:
            self.connection.send(new_signal(DBusAddress(path, interface=interface), member, "o", (argument,)))
        self.connection.send_and_get_reply(new_method_call(_BUS, "GetId"), timeout=30)

    def forge(self, path: str, interface: str, member: str, argument: str) -> None:
        """Sends the signal `member(o argument)` from `path` as this peer:
        once broadcast, and once to each other peer alone (a unicast signal
        reaches its destination whatever its match rules)."""
        signal = new_signal(DBusAddress(path, interface=interface), member, "o", (argument,))
        self.connection.send(signal)
        for peer in self.peers():
            unicast = new_signal(DBusAddress(path, interface=interface), member, "o", (argument,))
            unicast.header.fields[HeaderFields.destination] = peer
            self.connection.send(unicast)
        # A round trip: the bus has routed the signals once it answers.
        self.connection.send_and_get_reply(new_method_call(_BUS, "GetId"))
