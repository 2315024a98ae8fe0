# SPDX-License-Identifier: MIT
"""How long one client's call waits behind another client's flood, on the
Secret Service of the environment (run inside scripts/with-keychainkitd.sh
or scripts/with-secret-service.sh):

    bench_flood.py SERVER CALLS ROUNDS

Fills the default collection with 100 items of service=flood-bench, then,
ROUNDS times: one connection sends CALLS SearchItems for them in one write
(without reading an answer), a second connection then sends ReadAlias and
the time to its answer is taken; the flood's answers are read before the
next round. Prints one JSON line as the C benchmarks do (group "server",
median and p99 of the second client's wait). keychainkitd answers clients
in turn; gnome-keyring in the order the calls came."""
import json
import statistics
import sys
import time

from jeepney import DBusAddress, message_bus, new_method_call
from jeepney.io.blocking import open_dbus_connection

NAME = "org.freedesktop.secrets"
SERVICE = DBusAddress("/org/freedesktop/secrets", bus_name=NAME, interface="org.freedesktop.Secret.Service")
DEFAULT = DBusAddress("/org/freedesktop/secrets/aliases/default", bus_name=NAME,
                      interface="org.freedesktop.Secret.Collection")


def call(connection, address, member, signature="", body=()):
    reply = connection.send_and_get_reply(new_method_call(address, member, signature, body), timeout=120)
    if reply.header.message_type.name == "error":
        raise SystemExit(f"bench_flood: {member} failed: {reply.body}")
    return reply.body


def fill(connection, count):
    session = call(connection, SERVICE, "OpenSession", "sv", ("plain", ("s", "")))[1]
    for n in range(count):
        props = {"org.freedesktop.Secret.Item.Label": ("s", "flood"),
                 "org.freedesktop.Secret.Item.Attributes": ("a{ss}", {"service": "flood-bench", "n": str(n)})}
        call(connection, DEFAULT, "CreateItem", "a{sv}(oayays)b", (props, (session, b"", b"v", "text/plain"), True))


def one_round(flooder, other, calls):
    """The other client's wait, in nanoseconds, behind `calls` searches."""
    search = new_method_call(SERVICE, "SearchItems", "a{ss}", ({"service": "flood-bench"},))
    first = 1_000_000
    flooder.sock.sendall(b"".join(search.serialise(serial=first + n) for n in range(calls)))
    # The bus daemon has passed the flood on once it answers a call sent
    # after it (read here, among the flood's first answers).
    synced = first + calls
    flooder.sock.sendall(new_method_call(message_bus, "GetId").serialise(serial=synced))
    pending = set(range(first, synced + 1))
    while synced in pending:
        pending.discard(flooder.receive(timeout=300).header.fields.get(5))  # 5: REPLY_SERIAL
    start = time.perf_counter_ns()
    call(other, SERVICE, "ReadAlias", "s", ("default",))
    waited = time.perf_counter_ns() - start
    while pending:
        pending.discard(flooder.receive(timeout=300).header.fields.get(5))
    return waited


def main():
    server, calls, rounds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    with open_dbus_connection() as flooder, open_dbus_connection() as other:
        fill(flooder, 100)
        waits = sorted(one_round(flooder, other, calls) for _ in range(rounds))
    print(json.dumps({"group": "server", "name": f"{server}: a call behind another client's flood",
                      "median_ns": int(statistics.median(waits)), "p99_ns": waits[-1], "samples": rounds}))


if __name__ == "__main__":
    main()
