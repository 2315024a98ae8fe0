"""One item per key when our writers race Python ``keyring`` (Secret Service).

Python keyring creates its items with ``replace=True`` and the attributes
``service``, ``username`` and ``application``; the service replaces only an
item carrying all three, so ``keyring.set_password`` over our item adds a
second one. Our next write collapses the key's items into one holding its
value, and every tool reads that value afterwards.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from typing import List

from keychainkit import Keychain
from test_interop import items, secret_tool
from support import KEEPASSXC_CONCURRENT_CREATES, not_on_server

ROUNDS = 8

OUR_WRITER = """
import os, sys, time
from keychainkit import Keychain
service, account, value, start = sys.argv[1:5]
with Keychain(service=service) as kc:
    "connected" in kc
    print("ready", flush=True)
    while not os.path.exists(start):
        time.sleep(0.001)
    kc[account] = value
"""

KEYRING_WRITER = """
import os, sys, time
from keyring.backends.SecretService import Keyring
service, account, value, start = sys.argv[1:5]
backend = Keyring()
backend.get_password(service, "connected")
print("ready", flush=True)
while not os.path.exists(start):
    time.sleep(0.001)
backend.set_password(service, account, value)
"""


def keyring_backend():  # type: ignore[no-untyped-def]
    from keyring.backends.SecretService import Keyring

    return Keyring()


def race(service: str, account: str, writers: List[str]) -> None:
    """Starts one process per writer script, each storing its own value, and
    releases them together once all are connected."""
    with tempfile.TemporaryDirectory() as scratch:
        start = os.path.join(scratch, "start")
        processes = [
            subprocess.Popen(
                [sys.executable, "-c", script, service, account, f"value {index}", start],
                stdout=subprocess.PIPE, text=True,
            )
            for index, script in enumerate(writers)
        ]
        try:
            for process in processes:
                assert process.stdout is not None
                assert process.stdout.readline().strip() == "ready"
            open(start, "w").close()
            for process in processes:
                assert process.wait(timeout=60) == 0
        finally:
            for process in processes:
                process.kill()
                process.wait()
                if process.stdout is not None:
                    process.stdout.close()


@not_on_server("keepassxc", KEEPASSXC_CONCURRENT_CREATES)
def test_our_writers_racing_keyring_leave_one_item_after_our_write(secret_service: None, service: str) -> None:
    keyring = keyring_backend()
    with Keychain(service=service) as kc:
        for round in range(ROUNDS):
            account = f"raced-{round}"
            race(service, account, [OUR_WRITER, KEYRING_WRITER, OUR_WRITER, KEYRING_WRITER])
            assert kc[account] in {f"value {index}" for index in range(4)}
            kc[account] = "ours, last"
            assert len(items(service, account)) == 1
            assert keyring.get_password(service, account) == "ours, last"
            assert secret_tool("lookup", "service", service, "username", account) == "ours, last"


def test_keyring_writing_over_our_item_is_read_then_collapsed(secret_service: None, service: str) -> None:
    keyring = keyring_backend()
    with Keychain(service=service) as kc:
        kc["alice"] = "ours"
        keyring.set_password(service, "alice", "theirs")
        assert kc["alice"] == "theirs", "the most recent write is read"
        kc["alice"] = "ours again"
        assert len(items(service, "alice")) == 1
        assert keyring.get_password(service, "alice") == "ours again"
        del kc["alice"]
        assert keyring.get_password(service, "alice") is None
