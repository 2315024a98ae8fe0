# SPDX-License-Identifier: MIT
"""Fixtures: every behavioural test runs on each backend.

``memory`` always runs. ``secret_service`` needs the private, throw-away
gnome-keyring of scripts/with-secret-service.sh (which sets
KEYCHAINKIT_TEST_KEYRING=private); without it those tests FAIL, never skip,
so a run outside the harness cannot pass for a full one.
"""

from __future__ import annotations

import os
from typing import Iterator

import pytest

import keychainkit
from keychainkit import Keychain
from support import BACKENDS, open_keychain, require_private_keyring, require_private_session_keyring, unique_service


@pytest.fixture(params=BACKENDS)
def backend(request: pytest.FixtureRequest) -> str:
    """Each backend's name in turn."""
    if request.param == "secret_service":
        require_private_keyring()
    if request.param == "kernel":
        require_private_session_keyring()
    return str(request.param)


@pytest.fixture
def service() -> str:
    """A service of the test's own."""
    return unique_service()


@pytest.fixture
def kc(backend: str, service: str) -> Iterator[Keychain]:
    """An open keychain on each backend, with a service of its own."""
    keychain = open_keychain(backend, service)
    try:
        yield keychain
    finally:
        keychain.close()


@pytest.fixture
def secret_service() -> None:
    """For tests of the Secret Service only (interop, locking, no bus)."""
    require_private_keyring()


def pytest_report_header(config: pytest.Config) -> str:
    return (
        f"keychainkit {keychainkit.__version__} from {os.path.dirname(keychainkit.__file__)}; "
        f"libkeychainkit {keychainkit.library_version()} from {keychainkit.library_path()}; "
        f"KEYCHAINKIT_TEST_KEYRING={os.environ.get('KEYCHAINKIT_TEST_KEYRING')!r}"
    )
