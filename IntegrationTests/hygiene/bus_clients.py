# SPDX-License-Identifier: MIT
"""Secret Service clients for IntegrationTests/hygiene/bus_monitor.sh, run while
dbus-monitor records the private session bus. Secrets come from standard
input (one per line), never from arguments.

    python3 bus_clients.py binding SERVICE ACCOUNT   < FIRST\\nSECOND
        Through the Python binding (ctypes, kk_set/kk_get/kk_remove of
        libkeychainkit, chosen by $KEYCHAINKIT_LIBRARY): set FIRST (a
        CreateItem), read it back, replace it with SECOND (a SetSecret),
        read that back, remove the item.

    python3 bus_clients.py plain SERVICE ACCOUNT     < SECRET
        The control, with python3-dbus and no KeychainKit: opens a `plain`
        transfer session and stores SECRET with CreateItem in the default
        collection (completing KeePassXC's confirmation prompt), in clear on
        the bus, then reads it back with GetSecret.

Exits 0 when everything worked; otherwise prints why and exits 1.
"""

import sys
import time


def secrets(count):
    lines = sys.stdin.read().split("\n")
    if len(lines) < count or not all(lines[:count]):
        sys.exit(f"expected {count} secrets on standard input")
    return lines[:count]


def binding(service, account):
    from keychainkit import Keychain

    first, second = secrets(2)
    with Keychain(service=service) as kc:
        kc[account] = first                       # insert: CreateItem
        if kc.get(account) != first:
            sys.exit("the binding did not read back the first secret")
        kc[account] = second                      # replace: SetSecret
        if kc.get(account) != second:
            sys.exit("the binding did not read back the replacement")
        del kc[account]
        if account in kc:
            sys.exit("the binding's item was not removed")


def plain(service, account):
    import dbus

    (secret,) = secrets(1)
    name = "org.freedesktop.secrets"
    bus = dbus.SessionBus()
    service_object = bus.get_object(name, "/org/freedesktop/secrets")
    svc = dbus.Interface(service_object, "org.freedesktop.Secret.Service")
    _, session = svc.OpenSession("plain", dbus.String("", variant_level=1))
    collection = dbus.Interface(
        bus.get_object(name, "/org/freedesktop/secrets/aliases/default"),
        "org.freedesktop.Secret.Collection",
    )
    properties = {
        "org.freedesktop.Secret.Item.Label": dbus.String("kk hygiene plain-session control"),
        "org.freedesktop.Secret.Item.Attributes": dbus.Dictionary(
            {"service": service, "username": account}, signature="ss"
        ),
    }
    value = dbus.Struct(
        (session, dbus.ByteArray(b""), dbus.ByteArray(secret.encode("ascii")), "text/plain"),
        signature="oayays",
    )
    item, prompt = collection.CreateItem(properties, value, True)
    if prompt != "/":
        # KeePassXC confirms every create: complete the prompt, then find
        # the item it created.
        dbus.Interface(bus.get_object(name, prompt), "org.freedesktop.Secret.Prompt").Prompt("")
        for _ in range(250):
            found, _locked = svc.SearchItems({"service": service, "username": account})
            if found:
                item = found[0]
                break
            time.sleep(0.02)
        else:
            sys.exit(f"the item of CreateItem's prompt {prompt} never appeared")
    item_iface = dbus.Interface(bus.get_object(name, item), "org.freedesktop.Secret.Item")
    _, _, stored, _ = item_iface.GetSecret(session)
    if bytes(stored) != secret.encode("ascii"):
        sys.exit("the control item did not read back in clear")


def main():
    if len(sys.argv) != 4 or sys.argv[1] not in ("binding", "plain"):
        sys.exit(__doc__)
    {"binding": binding, "plain": plain}[sys.argv[1]](sys.argv[2], sys.argv[3])


if __name__ == "__main__":
    main()
