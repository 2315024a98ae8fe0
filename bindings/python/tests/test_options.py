"""Options at open: collection, timeout, prompts and prompt_timeout."""

from __future__ import annotations

import time

import pytest

import keyring_control
from keychainkit import InteractionNotAllowed, InvalidArgument, Keychain, KeychainError


@pytest.mark.parametrize(
    "options",
    [
        {"prompts": "sometimes"},
        {"prompts": None},
        {"timeout": 0},
        {"timeout": -1},
        {"timeout": "5"},
        {"timeout": True},
        {"prompt_timeout": 5_000_000},
        {"collection": ""},
        {"collection": "a\0b"},
        {"collection": 7},
        {"require_encryption": 1},
        {"require_encryption": "yes"},
    ],
)
def test_bad_options_raise_invalid_argument(options: dict) -> None:
    with pytest.raises(InvalidArgument):
        Keychain(**options)


def test_good_options_open_a_keychain() -> None:
    with Keychain(service="kk-py-options", collection="default", timeout=2.5, prompts="never", prompt_timeout=30) as kc:
        assert kc.backend == "secret-service"


def test_secrets_cross_the_bus_encrypted(secret_service: None, service: str) -> None:
    # Every server we test offers encryption; the fake server's plain-only
    # mode is tested in IntegrationTests/hostile.
    with Keychain(service=service, require_encryption=True) as strict, Keychain(service=service) as default:
        assert strict.transfer_encrypted is True
        assert default.transfer_encrypted is True
        strict["token"] = "v"
        assert default["token"] == "v"
        del strict["token"]


@pytest.mark.parametrize("opener", [Keychain.in_memory, Keychain.kernel_keyring])
def test_transfer_encrypted_is_a_secret_service_question(opener) -> None:
    with opener(service="kk-py-options") as kc:
        with pytest.raises(InvalidArgument, match="not a Secret Service handle"):
            kc.transfer_encrypted


def test_never_policy_refuses_a_locked_collection_at_once(secret_service: None, service: str) -> None:
    with Keychain(service=service, prompts="never", prompt_timeout=60) as kc:
        kc["token"] = "v"
        keyring_control.lock()
        try:
            start = time.monotonic()
            with pytest.raises(InteractionNotAllowed):
                kc["token"]
            with pytest.raises(InteractionNotAllowed):
                kc["new"] = "w"
            assert time.monotonic() - start < 2  # no prompt, no wait
        finally:
            keyring_control.unlock()
        del kc["token"]


def test_session_collection_holds_new_items_apart(secret_service: None, service: str) -> None:
    with Keychain(service=service, collection="session") as kc:
        if keyring_control.server() != "gnome-keyring":
            # KWallet and KeePassXC have no "session" alias: a clear failure.
            with pytest.raises(KeychainError, match="session"):
                kc["token"] = "in session"
            return
        kc["token"] = "in session"
        keyring_control.lock()
        try:
            assert kc["token"] == "in session"  # not in the locked default collection
        finally:
            keyring_control.unlock()
        del kc["token"]
