# SPDX-License-Identifier: MIT
"""Server logins (``Keychain.server_logins``) on every backend: exact
lookups, bad input, no secret in repr (locked: test_locked.py).

Accounts of a host, libsecret's NetworkPassword items and the library's
argument checks: IntegrationTests/c/test_server_logins.c."""

from __future__ import annotations

import pytest

from keychainkit import InvalidArgument, Keychain, ServerLogin


def host(service: str) -> str:
    return f"{service}.example"


def test_passwords_round_trip_by_exact_login(kc: Keychain, service: str) -> None:
    if kc.backend == "kernel":
        with pytest.raises(InvalidArgument, match="kernel"):
            kc.server_logins.set_password(ServerLogin(host(service), "alice"), "x")
        return
    logins = kc.server_logins
    imap = ServerLogin(host(service), "alice", protocol="imap", port=993)
    web = ServerLogin(host(service), "alice", protocol="https")
    logins.set_password(imap, "imap-pw")
    logins.set_password(web, b"web\0pw")
    assert logins.password(imap) == "imap-pw"
    assert logins.password_bytes(web) == b"web\0pw"
    assert logins.password(ServerLogin(host(service), "alice")) is None  # exact: no protocol, no match
    assert logins.password(ServerLogin(host(service), "alice", protocol="imap")) is None
    assert logins.accounts(host(service)) == ["alice"]
    assert kc.get("alice") is None  # the (service, account) items are apart
    logins.remove_password(imap)
    logins.remove_password(web)
    assert logins.accounts(host(service)) == []


@pytest.mark.parametrize("bad", [
    dict(server="h", account="a\0b"), dict(server="h", account="a", port=0),
    dict(server="h", account="a", port=65536), dict(server="h", account="a", port=True),
    dict(server="h", account=None), dict(server="h", account="a", protocol="\ud800"),
])
def test_bad_logins_are_invalid_arguments(bad: dict) -> None:
    with Keychain.in_memory() as kc:
        with pytest.raises(InvalidArgument):
            kc.server_logins.set_password(ServerLogin(**bad), "x")


def test_no_secret_in_repr(kc: Keychain, service: str) -> None:
    login = ServerLogin(host(service), "erin")
    assert "erin" in repr(login) and repr(kc.server_logins) == "<keychainkit.ServerLogins>"
