"""One item per key beside Python ``keyring`` (Secret Service).

Python keyring creates its items with ``replace=True`` and the attributes
``service``, ``username`` and ``application``; the service replaces only an
item carrying all three, so ``keyring.set_password`` over our item adds a
second one. Our next write collapses the key's items into one holding its
value, and every tool reads that value afterwards.

The library's contract under contention (threads, handles and processes
writing one key, racing secret-tool and keyring's items) is asserted by
the C ABI suite, IntegrationTests/c/test_contention.c. Here, once, with
the real Python keyring in this process, through the binding.
"""

from __future__ import annotations

import keyring_control
from keychainkit import Keychain


def test_keyring_writing_over_our_item_is_read_then_collapsed(secret_service: None, service: str) -> None:
    from keyring.backends.SecretService import Keyring

    keyring = Keyring()
    with Keychain(service=service) as kc:
        kc["alice"] = "ours"
        keyring.set_password(service, "alice", "theirs")
        assert kc["alice"] == "theirs", "the most recent write is read"
        kc["alice"] = "ours again"
        assert len(keyring_control.items({"service": service, "username": "alice"})) == 1
        assert keyring.get_password(service, "alice") == "ours again"
        del kc["alice"]
        assert keyring.get_password(service, "alice") is None
