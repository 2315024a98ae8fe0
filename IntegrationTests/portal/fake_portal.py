# SPDX-License-Identifier: MIT
"""A fake Secret portal (org.freedesktop.portal.Secret, version 1) for the
tests of what a client believes of its answer.

    python fake_portal.py MODE

It owns org.freedesktop.portal.Desktop on the session bus and answers
RetrieveSecret as xdg-desktop-portal does — 64 bytes written to the
caller's pipe, the pipe closed, then Request.Response(0) on the request's
path — except as MODE says:

- ``forged``: before the real answer, a second connection (another bus
  peer, not the portal) sends the caller Response(1) ("canceled") directly
  on the same path; a client that believes it fails where the real portal
  would have given the secret.
- ``extra-byte``: 65 bytes, as when a second writer of the pipe (a bus
  monitor also receives its write end) wrote first.
- ``honest``: neither.

Prints "ready" once it owns the name; serves until killed.
"""

import os
import sys

from jeepney import DBusAddress, HeaderFields, new_method_return, new_signal
from jeepney.bus_messages import DBusNameFlags, message_bus
from jeepney.io.blocking import open_dbus_connection

NAME = "org.freedesktop.portal.Desktop"
SECRET = bytes(range(64))


def response(connection, destination: str, path: str, code: int) -> None:
    signal = new_signal(DBusAddress(path, interface="org.freedesktop.portal.Request"), "Response", "ua{sv}",
                        (code, {}))
    signal.header.fields[HeaderFields.destination] = destination
    connection.send(signal)


def main(mode: str) -> int:
    portal = open_dbus_connection("SESSION", enable_fds=True)
    forger = open_dbus_connection("SESSION")
    reply = portal.send_and_get_reply(message_bus.RequestName(NAME, DBusNameFlags.do_not_queue))
    if reply.body[0] != 1:
        print(f"cannot own {NAME}: {reply.body}", file=sys.stderr)
        return 1
    print("ready", flush=True)
    while True:
        message = portal.receive()
        member = message.header.fields.get(HeaderFields.member)
        sender = message.header.fields.get(HeaderFields.sender)
        if member == "Get":
            portal.send(new_method_return(message, "v", (("u", 1),)))
        elif member == "RetrieveSecret":
            fd, options = message.body
            token = options["handle_token"][1]
            path = f"/org/freedesktop/portal/desktop/request/{sender[1:].replace('.', '_')}/{token}"
            portal.send(new_method_return(message, "o", (path,)))
            if mode == "forged":
                response(forger, sender, path, 1)
            with os.fdopen(fd.to_raw_fd(), "wb") as pipe:
                pipe.write(SECRET + (b"!" if mode == "extra-byte" else b""))
            response(portal, sender, path, 0)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
