"""Helpers shared by the tests: opening keychains on either backend."""

from __future__ import annotations

import os
import uuid
from typing import Optional

import pytest

from keychainkit import Keychain

BACKENDS = ["memory", "secret_service"]


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


def unique_service() -> str:
    """A service no other test uses, so tests never see each other's items."""
    return f"kk-py-test-{uuid.uuid4().hex[:12]}"


def open_keychain(backend: str, service: Optional[str] = None) -> Keychain:
    """A new keychain on ``backend`` ("memory" or "secret_service")."""
    if backend == "memory":
        return Keychain.in_memory(service=service)
    require_private_keyring()
    return Keychain(service=service)
