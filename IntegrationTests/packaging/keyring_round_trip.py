# SPDX-License-Identifier: MIT
"""Python keyring's round trip through KeychainKit's backend, which keyring
finds by itself through the wheel's entry point (no keyringrc.cfg, no
PYTHON_KEYRING_BACKEND), inside a private Secret Service
(IntegrationTests/packaging/wheel-chroot.sh). The password is then read by
keyring's own SecretService backend too: it is in the Secret Service.
"""
import keyring
import keyring.backends.SecretService

service, username, password = "keychainkit-wheel-check", "alice", "s3cret \u2713"
backend = keyring.get_keyring()
assert type(backend).__module__ == "keychainkit.keyring_backend", f"keyring chose {backend!r}"
keyring.set_password(service, username, password)
assert keyring.get_password(service, username) == password
assert keyring.backends.SecretService.Keyring().get_password(service, username) == password
keyring.delete_password(service, username)
assert keyring.get_password(service, username) is None
print("ok keyring", type(backend).__module__)
