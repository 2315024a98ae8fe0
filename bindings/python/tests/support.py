# SPDX-License-Identifier: MIT
"""Helpers shared by the tests: opening keychains on each backend."""

from __future__ import annotations

import os
import pathlib
import re
import uuid
from typing import Optional

import pytest

from keychainkit import Keychain

BACKENDS = ["memory", "secret_service", "kernel"]

HEARS_OTHERS = ["memory", "secret_service"]
"""The backends whose observers hear changes made elsewhere (the kernel
keyring announces none); for ``pytest.mark.parametrize("backend",
HEARS_OTHERS, indirect=True)``."""

ANY_SIZE = ["memory", "secret_service"]
"""The backends that store every value from empty to MAX_VALUE_SIZE (the
kernel keyring stores 1 to 32767 bytes: test_kernel_keyring.py)."""


def private_keyring() -> bool:
    """Whether the tests run inside scripts/with-secret-service.sh."""
    return os.environ.get("KEYCHAINKIT_TEST_KEYRING") == "private"


def require_private_keyring() -> None:
    """Fails the calling test unless it runs inside the private keyring harness."""
    if not private_keyring():
        pytest.fail(
            "this test needs the Secret Service of a private, throw-away keyring, and "
            "KEYCHAINKIT_TEST_KEYRING is not 'private': run bindings/python/run-tests.sh, "
            "or scripts/with-secret-service.sh pytest ... (never your own keyring)",
            pytrace=False,
        )


def require_private_session_keyring() -> None:
    """Fails the calling test unless it runs in a throw-away session keyring
    of scripts/with-session-keyring.sh, where the kernel backend's tests
    keep their keys."""
    if os.environ.get("KEYCHAINKIT_TEST_SESSION_KEYRING") != "private":
        pytest.fail(
            "this test keeps kernel keys in a throw-away session keyring, and "
            "KEYCHAINKIT_TEST_SESSION_KEYRING is not 'private': run bindings/python/run-tests.sh, "
            "or scripts/with-session-keyring.sh pytest ...",
            pytrace=False,
        )


def unique_service() -> str:
    """A service no other test uses, so tests never see each other's items."""
    return f"kk-py-test-{uuid.uuid4().hex[:12]}"


def open_keychain(backend: str, service: Optional[str] = None) -> Keychain:
    """A new keychain on ``backend`` ("memory", "secret_service" or "kernel":
    the session keyring, a throw-away one)."""
    if backend == "memory":
        return Keychain.in_memory(service=service)
    if backend == "kernel":
        require_private_session_keyring()
        return Keychain.kernel_keyring(service=service, keyring="session")
    require_private_keyring()
    return Keychain(service=service)



def mapping_flags(address: int) -> Optional[str]:
    """The VmFlags (smaps; ``dd``: not dumped) of the mapping at `address`; None when unmapped."""
    for block in re.split(r"\n(?=[0-9a-f]+-[0-9a-f]+ )", pathlib.Path("/proc/self/smaps").read_text()):
        low, high = (int(end, 16) for end in block.split(None, 1)[0].split("-"))
        if low <= address < high:
            return next(line for line in block.splitlines() if line.startswith("VmFlags:")) + " "
    return None
