"""Server logins (``Keychain.server_logins``) on every backend: exact
lookups, accounts of a host, libsecret's NetworkPassword items, bad input,
no secret in repr or errors."""

from __future__ import annotations

import subprocess

import pytest

import keyring_control
from keychainkit import InteractionNotAllowed, InvalidArgument, Keychain, ServerLogin


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
    logins.set_password(imap, "changed")
    assert logins.password(imap) == "changed"
    assert kc.get("alice") is None  # the (service, account) items are apart
    logins.remove_password(imap)
    logins.remove_password(imap)  # absent: no error
    logins.remove_password(web)
    assert logins.accounts(host(service)) == []


def test_accounts_of_a_host_are_sorted_without_duplicates(kc: Keychain, service: str) -> None:
    if kc.backend == "kernel":
        return  # no server logins there (test_passwords_round_trip_by_exact_login checks the error)
    logins = kc.server_logins
    stored = [ServerLogin(host(service), "bob", protocol="https"),
              ServerLogin(host(service), "alice", protocol="smb", domain="WORKGROUP"),
              ServerLogin(host(service), "alice", protocol="https", port=8443, path="repo")]
    for login in stored:
        logins.set_password(login, "pw")
    assert logins.accounts(host(service)) == ["alice", "bob"]
    for login in stored:
        logins.remove_password(login)


def test_other_libsecret_clients_find_the_item(secret_service: None, service: str) -> None:
    with Keychain(service=service) as kc:
        login = ServerLogin(host(service), "carol", protocol="ftp", port=2121, path="pub")
        kc.server_logins.set_password(login, "ftp-pw")
        found = subprocess.run(
            ["secret-tool", "lookup", "xdg:schema", "org.gnome.keyring.NetworkPassword", "server", host(service),
             "user", "carol", "protocol", "ftp", "port", "2121", "object", "pub"],
            capture_output=True, text=True, timeout=30)
        assert found.stdout == "ftp-pw"
        kc.server_logins.remove_password(login)


@pytest.mark.parametrize("bad", [
    dict(server="", account="a"), dict(server="h", account="a\0b"), dict(server="h", account="a", port=0),
    dict(server="h", account="a", port=65536), dict(server="h", account="a", port=True),
    dict(server="h", account=None), dict(server="h", account="a", protocol="\ud800"),
])
def test_bad_logins_are_invalid_arguments(bad: dict) -> None:
    with Keychain.in_memory() as kc:
        with pytest.raises(InvalidArgument):
            kc.server_logins.set_password(ServerLogin(**bad), "x")


def test_an_empty_server_has_no_accounts_to_list() -> None:
    with Keychain.in_memory() as kc:
        with pytest.raises(InvalidArgument, match="server"):
            kc.server_logins.accounts("")


@pytest.mark.parametrize("state", keyring_control.LOCK_STATES)
def test_locked_is_never_absent(secret_service: None, service: str, monkeypatch: pytest.MonkeyPatch, state: str) -> None:
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    with Keychain(service=service) as kc:
        login = ServerLogin(host(service), "dave", protocol="https")
        kc.server_logins.set_password(login, "locked-secret")
        with keyring_control.locked(state):
            with pytest.raises(InteractionNotAllowed) as raised:
                kc.server_logins.password(login)
            assert "locked-secret" not in str(raised.value)
        assert kc.server_logins.password(login) == "locked-secret"
        kc.server_logins.remove_password(login)


def test_no_secret_in_repr(kc: Keychain, service: str) -> None:
    login = ServerLogin(host(service), "erin")
    assert "erin" in repr(login) and repr(kc.server_logins) == "<keychainkit.ServerLogins>"
