# SPDX-License-Identifier: MIT
"""Unlocks the Secret Service's default collection (the wallet opened by
open_wallet.py) through kwalletd5's Secret Service API: Unlock, then the
prompt it returns, which completes without a window. Waits at most 10 s.
Needs Debian's python3-dbus.
"""

import time

import dbus

NAME = "org.freedesktop.secrets"
bus = dbus.SessionBus()
service = dbus.Interface(bus.get_object(NAME, "/org/freedesktop/secrets"), "org.freedesktop.Secret.Service")
collection = service.ReadAlias("default")
if collection == "/":
    raise SystemExit("unlock_collection.py: no default collection")
properties = dbus.Interface(bus.get_object(NAME, collection), "org.freedesktop.DBus.Properties")
_unlocked, prompt = service.Unlock([collection])
if prompt != "/":
    dbus.Interface(bus.get_object(NAME, prompt), "org.freedesktop.Secret.Prompt").Prompt("")
deadline = time.monotonic() + 10
while properties.Get("org.freedesktop.Secret.Collection", "Locked"):
    if time.monotonic() > deadline:
        raise SystemExit("unlock_collection.py: the collection is still locked after 10 s")
    time.sleep(0.05)
