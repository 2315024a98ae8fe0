"""The kernel keyring through the binding: choosing a keyring by name (the
default, the persistent keyring, as keyctl sees it) and rejecting others.

The backend's behaviour (the description scheme, value sizes, the keyrings
kept apart, quota, permissions, seccomp, handles racing on one key) is
asserted by the C ABI suite, IntegrationTests/c/test_kernel_keyring.c."""

from __future__ import annotations

import subprocess
from typing import Iterator

import pytest

from keychainkit import InvalidArgument, Keychain
from support import require_private_session_keyring, unique_service


@pytest.fixture
def session_keyring() -> None:
    """For tests that write the (throw-away) session keyring."""
    require_private_session_keyring()


@pytest.fixture
def persistent(service: str) -> Iterator[Keychain]:
    """The default kernel keychain, the user's persistent keyring; every
    account of its service is removed afterwards."""
    with Keychain.kernel_keyring(service=service) as kc:
        try:
            yield kc
        finally:
            kc.clear()


def keyctl(*args: str) -> str:
    return subprocess.run(["keyctl", *args], check=True, capture_output=True, text=True).stdout


def test_the_default_is_the_persistent_keyring_and_keyctl_finds_its_keys(persistent: Keychain, service: str) -> None:
    assert persistent.backend == "kernel"
    persistent["to:ken"] = "s3cret"
    # keyctl, another process of the user, links the persistent keyring into its own session.
    ring = keyctl("get_persistent", "@s").strip()
    serial = keyctl("search", ring, "user", f"keychainkit:{len(service.encode())}:{service}:to:ken").strip()
    assert keyctl("pipe", serial) == "s3cret"
    with Keychain.kernel_keyring(service=service, keyring="persistent") as again:
        assert again["to:ken"] == "s3cret"


@pytest.mark.parametrize("keyring", ["user", "session"])
def test_each_keyring_holds_its_own_items(session_keyring: None, keyring: str) -> None:
    service = unique_service()
    with Keychain.kernel_keyring(service=service, keyring=keyring) as kc, \
            Keychain.kernel_keyring(service=service) as persistent:
        kc["acct"] = keyring
        try:
            assert kc["acct"] == keyring
            assert persistent.get("acct") is None
        finally:
            del kc["acct"]
        assert "acct" not in kc


@pytest.mark.parametrize("keyring", ["", "Persistent", "process", 0, None])
def test_other_keyrings_are_rejected(keyring: object) -> None:
    with pytest.raises(InvalidArgument, match="keyring must be one of 'persistent', 'user', 'session'"):
        Keychain.kernel_keyring(keyring=keyring)  # type: ignore[arg-type]
