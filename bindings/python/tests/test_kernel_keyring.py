"""The kernel keyring backend's own cases: choosing a keyring, the value
size limit, the description scheme as keyctl sees it, and the Secret
Service's "unavailable" naming the kernel keyring as the alternative."""

from __future__ import annotations

import os
import subprocess
from typing import Iterator

import pytest

from keychainkit import InvalidArgument, Keychain, ServiceUnavailable
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


def test_values_hold_1_to_32767_bytes_never_truncated(session_keyring: None) -> None:
    with Keychain.kernel_keyring(service=unique_service(), keyring="session") as kc:
        kc["acct"] = b"x" * 32767
        with pytest.raises(InvalidArgument, match="1 to 32767 bytes"):
            kc["acct"] = b"x" * 32768
        with pytest.raises(InvalidArgument, match="1 to 32767 bytes"):
            kc["acct"] = ""
        assert kc.value_bytes("acct") == b"x" * 32767
        del kc["acct"]


def test_no_secret_service_names_the_kernel_keyring(secret_service: None, service: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(os.environ, "DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent/bus")
    with Keychain(service=service) as kc:
        with pytest.raises(ServiceUnavailable) as caught:
            kc.value("token")
    assert "kk_open_kernel_keyring" in str(caught.value)
    assert "KEYCHAINKIT_BACKEND=kernel" in str(caught.value)


def test_keychains_racing_to_set_and_remove_one_key_see_no_error(session_keyring: None, service: str) -> None:
    # A removal that finds the key another keychain unlinks meanwhile is a
    # removal of an absent key, not an error (the kernel says ENOENT).
    import threading

    errors: list = []

    def work(seed: int) -> None:
        with Keychain.kernel_keyring(service=service, keyring="session") as kc:
            for index in range(1500):
                account = "ab"[(seed + index) % 2]
                try:
                    if (seed * 7 + index) % 3 == 0:
                        kc.remove_value(account)
                    else:
                        kc[account] = f"{seed}:{index}"
                        kc.get(account)
                except Exception as error:  # every error is unexpected
                    errors.append(repr(error))

    threads = [threading.Thread(target=work, args=(seed,)) for seed in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    with Keychain.kernel_keyring(service=service, keyring="session") as kc:
        kc.clear()
