# SPDX-License-Identifier: MIT
"""Python ``keyring``'s entry point for KeychainKit (``keyring.backends``:
``keychainkit = keychainkit_keyring``).

A module of its own, outside the ``keychainkit`` package, because keyring
imports every plugin in every program that uses keyring, and importing
``keychainkit`` loads ``libkeychainkit``. When the library cannot be loaded
(the package installed before the library, the library removed), this
module registers no backend and says nothing: keyring goes on with its own
backends, with no "Error initializing plugin" traceback on stderr.
``import keychainkit`` still says what is missing and how to fix it.

When the library loads, importing this module registers
:class:`keychainkit.keyring_backend.Keyring`.
"""

try:
    from keychainkit.keyring_backend import Keyring  # noqa: F401  (registers the backend)
except (ImportError, OSError):
    Keyring = None  # the library is missing: no backend
