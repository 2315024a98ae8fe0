# SPDX-License-Identifier: MIT
"""The kernel keyring through the binding: choosing a keyring by name (the
default, the persistent keyring) and rejecting others.

The backend's behaviour (the description scheme keyctl finds, value sizes,
the keyrings kept apart, quota, permissions, seccomp, handles racing on one
key) is asserted by the C ABI suite, IntegrationTests/c/test_kernel_keyring.c."""

from __future__ import annotations

from typing import Any, Dict

import pytest

from keychainkit import InvalidArgument, Keychain


@pytest.mark.parametrize(
    "options,persistence",
    [({}, "until reboot"), ({"keyring": "persistent"}, "until reboot"),
     ({"keyring": "user"}, "until logout"), ({"keyring": "session"}, "until logout")],
)
def test_the_keyring_named_is_opened_the_persistent_one_by_default(options: Dict[str, Any], persistence: str) -> None:
    # Decided from the handle alone: nothing is written.
    with Keychain.kernel_keyring(**options) as kc:
        assert kc.backend == "kernel" and kc.persistence == persistence


@pytest.mark.parametrize("keyring", ["", "Persistent", "process", 0, None])
def test_other_keyrings_are_rejected(keyring: object) -> None:
    with pytest.raises(InvalidArgument, match="keyring must be one of 'persistent', 'user', 'session'"):
        Keychain.kernel_keyring(keyring=keyring)  # type: ignore[arg-type]
