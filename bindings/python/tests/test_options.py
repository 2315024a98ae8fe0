# SPDX-License-Identifier: MIT
"""Options at open: collection, timeout, prompts, prompt_timeout and
require_encryption, checked by the binding; transfer_encrypted read back.

What the library does with them (the never policy, the session collection,
encrypted transfer) is asserted by IntegrationTests/c/test_prompts.c."""

from __future__ import annotations

import pytest

from keychainkit import InvalidArgument, Keychain


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


def test_transfer_encrypted_is_read_back_as_a_bool(secret_service: None, service: str) -> None:
    # Every server we test offers encryption (plain-only: IntegrationTests/hostile).
    with Keychain(service=service, require_encryption=True) as kc:
        assert kc.transfer_encrypted is True


def test_transfer_encrypted_is_a_secret_service_question() -> None:
    with Keychain.in_memory(service="kk-py-options") as kc:
        with pytest.raises(InvalidArgument, match="not a Secret Service handle"):
            kc.transfer_encrypted
