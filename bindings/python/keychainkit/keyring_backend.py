# SPDX-License-Identifier: MIT
"""A backend for Python ``keyring`` on KeychainKit (the Secret Service).

Installing the ``keychainkit`` package registers :class:`Keyring` through
the ``keyring.backends`` entry point: when a Secret Service answers, its
priority (6) is above keyring's own SecretService backend (5), so
``keyring.get_password`` and every tool built on it (pip, twine, poetry) use
it with no configuration. When no other viable backend keeps passwords
elsewhere, its priority (11) is above keyring's chainer too, and keyring
uses it alone (see :data:`SOLE_PRIORITY`). Select it explicitly with
``PYTHON_KEYRING_BACKEND=keychainkit.keyring_backend.Keyring`` or, in
``keyringrc.cfg``::

    [backend]
    default-keyring=keychainkit.keyring_backend.Keyring

Items are the ones keyring's SecretService backend reads and writes
(attributes ``service`` and ``username``; label ``Password for '<username>'
on '<service>'``), so either backend finds the other's passwords. The empty
username is an ordinary account (``username=""``), as keyring stores it.

This module imports ``keyring``, which the ``keychainkit`` package itself
does not need: keyring imports it, through the entry point.
"""

from __future__ import annotations

from contextlib import contextmanager
from typing import Iterator, Optional, Type

from keyring import credentials, errors
from keyring.backend import KeyringBackend
from keyring.compat import properties

from ._errors import InteractionNotAllowed, KeychainError, ServiceUnavailable, UserCanceled
from ._keychain import Keychain

PRIORITY = 6
"""The priority when a Secret Service answers: above keyring's SecretService (5)."""

SOLE_PRIORITY = 11
"""The priority when a Secret Service answers and every other viable backend
keeps its passwords where this one reads them (keyring's SecretService and
libsecret backends): above keyring's chainer (10), so that keyring uses this
backend alone. The chainer would ask those backends too, for the same items,
after asking each of them for its priority on every call (a D-Bus connection
each for keyring's SecretService backend)."""

_SAME_STORE = frozenset({"keyring.backends.SecretService.Keyring", "keyring.backends.libsecret.Keyring"})
"""The backends whose passwords are this one's: Secret Service items with
``service`` and ``username``."""

_NEVER_CHAINED = frozenset({"keyring.backends.chainer.ChainerBackend", "keyring.backends.fail.Keyring",
                            "keyring.backends.null.Keyring"})
"""keyring's backends that hold no passwords of their own."""

_PROBE_SERVICE = "keychainkit.keyring_backend"
_PROBE_ACCOUNT = "probe"


@contextmanager
def _keyring_errors(failure: Type[errors.KeyringError]) -> Iterator[None]:
    """Raises keyring's exception for a :class:`KeychainError`: locked (or an
    unlock prompt dismissed) is :class:`keyring.errors.KeyringLocked`, no
    Secret Service :class:`keyring.errors.NoKeyringError`, anything else
    ``failure``. Messages are the library's, which never hold a secret."""
    try:
        yield
    except (InteractionNotAllowed, UserCanceled) as error:
        raise errors.KeyringLocked(str(error)) from error
    except ServiceUnavailable as error:
        raise errors.NoKeyringError(str(error)) from error
    except KeychainError as error:
        raise failure(str(error)) from error


def _others_hold_passwords(ours: type) -> bool:
    """Whether a viable keyring backend other than ``ours`` keeps passwords
    elsewhere than the Secret Service items ``ours`` reads (keyring's
    KWallet backend, keyrings.alt's files, any plugin not known here)."""
    for backend in list(KeyringBackend._classes):  # every backend keyring loaded, plugins included
        name = f"{backend.__module__}.{backend.__name__}"
        if backend is ours or name in _SAME_STORE or name in _NEVER_CHAINED:
            continue
        if backend.viable:  # its priority, as keyring reads it
            return True
    return False


class Keyring(KeyringBackend):
    """keyring's backend interface over a KeychainKit Secret Service handle.

    Unlock prompts follow the library's default policy (shown only in a
    graphical session, ``DISPLAY`` or ``WAYLAND_DISPLAY`` set); no call waits
    without bound. The instance holds no secret: ``repr()`` and ``str()``
    name the class and priority only.
    """

    _answered = False
    _decided: Optional[float] = None
    _deciding = False

    preferred_collection: Optional[str] = None
    """Where new items go, as with keyring's SecretService backend: a
    collection's D-Bus object path (or an alias such as ``"session"``);
    ``None``, the default collection. Set it as keyring sets any backend
    property: ``KEYRING_PROPERTY_PREFERRED_COLLECTION`` in the environment,
    or ``keyring.get_keyring().with_properties(preferred_collection=...)``.
    Unlike keyring's backend, reads still look in every collection (as the
    library always does), so a password is found wherever it was stored."""

    def __init__(self) -> None:
        super().__init__()
        self._opened: Optional[Keychain] = None
        self._opened_for: Optional[str] = None

    @property
    def _keychain(self) -> Keychain:
        """The handle for :attr:`preferred_collection`, opened on first use
        and again when the property changes (``with_properties`` copies the
        backend and sets it in the copy's ``__dict__``)."""
        wanted = self.preferred_collection
        if self._opened is None or self._opened_for != wanted:
            self._opened = Keychain(collection=wanted)
            self._opened_for = wanted
        return self._opened

    @properties.classproperty
    def priority(cls) -> float:
        """When a Secret Service answers a search (an absent or locked item
        is an answer): :data:`SOLE_PRIORITY` if every other viable backend
        keeps its passwords where this one reads them (keyring then uses
        this one alone), else :data:`PRIORITY` (keyring's chainer then asks
        this one first, and the others after it). :class:`RuntimeError`
        otherwise, so keyring deems the backend not viable. No Secret
        Service fails at once (the library's ``KK_EUNAVAILABLE``); the probe
        never prompts.

        The answer is remembered for the process: keyring's chainer reads
        every backend's priority on every call."""
        if not cls._answered:
            try:
                with Keychain(prompts="never") as probe:
                    probe.contains(_PROBE_ACCOUNT, service=_PROBE_SERVICE)
            except (InteractionNotAllowed, UserCanceled):
                pass
            except KeychainError as error:
                raise RuntimeError(f"no Secret Service answered: {error}") from error
            cls._answered = True
        if cls._deciding:
            return PRIORITY  # asked again while the others are looked at
        if cls._decided is None:
            cls._deciding = True
            try:
                cls._decided = SOLE_PRIORITY if not _others_hold_passwords(cls) else PRIORITY
            finally:
                cls._deciding = False
        return cls._decided

    @properties.classproperty
    def name(cls) -> str:
        """The name keyring displays."""
        return "KeychainKit Secret Service"

    def get_password(self, service: str, username: str) -> Optional[str]:
        """The password of ``username`` for ``service``, or ``None``."""
        with _keyring_errors(errors.KeyringError):
            return self._keychain.value(username, service=service)

    def set_password(self, service: str, username: str, password: str) -> None:
        """Stores ``password``, replacing any item of the key, whichever
        tool wrote it. Raises :class:`keyring.errors.PasswordSetError`."""
        with _keyring_errors(errors.PasswordSetError):
            self._keychain.update_value(password, username, service=service)

    def delete_password(self, service: str, username: str) -> None:
        """Removes every item of the key; raises
        :class:`keyring.errors.PasswordDeleteError` when there is none."""
        with _keyring_errors(errors.PasswordDeleteError):
            if not self._keychain.contains(username, service=service):
                raise errors.PasswordDeleteError("no such password")
            self._keychain.remove_value(username, service=service)

    def get_credential(self, service: str, username: Optional[str]) -> Optional[credentials.Credential]:
        """The credential of ``username`` for ``service``; with ``username``
        ``None``, that of the first account of the service (by UTF-8 bytes)
        that has a text password. ``None`` when there is none."""
        with _keyring_errors(errors.KeyringError):
            accounts = self._keychain.accounts(service) if username is None else [username]
            for account in accounts:
                password = self._keychain.value(account, service=service)
                if password is not None:
                    return credentials.SimpleCredential(account, password)
        return None
