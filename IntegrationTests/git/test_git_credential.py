# SPDX-License-Identifier: MIT
"""git-credential-keychainkit as git runs it: real `git credential
fill/approve/reject` with `credential.helper` configured, against the
private Secret Service of the harness (scripts/with-secret-service.sh,
scripts/with-kwallet.sh or scripts/with-keepassxc.sh), and interop both ways with git's own
git-credential-libsecret built from the git package's contrib sources.

Environment (IntegrationTests/git/run.sh sets it): KEYCHAINKIT_GIT_HELPER, the helper
(a link named git-credential-keychainkit); KEYCHAINKIT_GIT_LIBSECRET_HELPER,
the built libsecret helper (given on gnome-keyring only: on KeePassXC
libsecret's store over an existing item never returns, see DESIGN.md; the
interop is with libsecret, which is the same on every server).
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Dict, List, Optional

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bindings" / "python" / "tests"))
import keyring_control  # noqa: E402

HELPER = os.environ["KEYCHAINKIT_GIT_HELPER"]
LIBSECRET = os.environ.get("KEYCHAINKIT_GIT_LIBSECRET_HELPER", "")
GIT_ATTRIBUTES = ["attribute.protocol", "attribute.server", "attribute.port", "attribute.object", "attribute.user"]
# Every call is bounded: a helper that hangs fails its test instead of the run.
BOUND = 30


def secret_tool_store(arguments: List[str], secret: str) -> subprocess.CompletedProcess:
    """`secret-tool store`, made again (at most twice) on KWallet when its
    key exchange went wrong: KWallet 5.103 gets about 1.5% of them wrong and
    libsecret then says "Can't find session" (RELIABILITY.md; a CI run of
    ab9a9cf failed so, with no call of ours involved). Any other failure,
    and any other server, is left alone."""
    for attempt in range(3):
        stored = subprocess.run(["secret-tool", "store", *arguments], input=secret, text=True,
                                capture_output=True, timeout=BOUND)
        if (stored.returncode == 0 or attempt == 2 or keyring_control.server() != "kwallet"
                or "Can't find session" not in stored.stderr):
            return stored
    raise AssertionError("unreachable")


def parse(text: str) -> Dict[str, str]:
    """git's credential lines as a dict."""
    return dict(line.split("=", 1) for line in text.splitlines() if "=" in line)


def lines(**fields: Optional[str]) -> str:
    return "".join(f"{key}={value}\n" for key, value in fields.items() if value is not None) + "\n"


@pytest.fixture
def host() -> str:
    """A host no other test uses."""
    return f"git-{uuid.uuid4().hex[:12]}.example"


@pytest.fixture
def git_env(tmp_path: Path) -> Dict[str, str]:
    """An environment where git reads only a configuration of ours and never
    asks at a terminal."""
    env = dict(os.environ)
    env.update(HOME=str(tmp_path), XDG_CONFIG_HOME=str(tmp_path / "config"),
               GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL=str(tmp_path / "gitconfig"),
               GIT_TERMINAL_PROMPT="0", GIT_ASKPASS="", SSH_ASKPASS="")
    env.pop("DISPLAY", None)
    env.pop("WAYLAND_DISPLAY", None)
    return env


def git(env: Dict[str, str], action: str, text: str, helper: str = HELPER, *config: str) -> subprocess.CompletedProcess:
    """`git credential ACTION` with `helper` as the only credential helper."""
    options: List[str] = ["-c", "credential.helper=", "-c", f"credential.helper={helper}"]
    for item in config:
        options += ["-c", item]
    return subprocess.run(["git", *options, "credential", action], input=text, env=env,
                          capture_output=True, text=True, timeout=BOUND)


def helper(operation: str, text: str, program: str = HELPER, env: Optional[Dict[str, str]] = None,
           args: tuple = ()) -> subprocess.CompletedProcess:
    """The helper run directly, as git runs it."""
    return subprocess.run([program, *args, operation], input=text, capture_output=True, text=True,
                          timeout=BOUND, env=env)


def fill(env: Dict[str, str], helper_path: str = HELPER, *config: str, **fields: str) -> Dict[str, str]:
    result = git(env, "fill", lines(**fields), helper_path, *config)
    assert result.returncode == 0, result.stderr
    return parse(result.stdout)


def fill_fails(env: Dict[str, str], *config: str, **fields: str) -> subprocess.CompletedProcess:
    """fill, where no helper answers: git would ask at the terminal, which
    GIT_TERMINAL_PROMPT=0 forbids."""
    result = git(env, "fill", lines(**fields), HELPER, *config)
    assert result.returncode != 0, f"a credential was found: {result.stdout}"
    return result


def approve(env: Dict[str, str], helper_path: str = HELPER, *config: str, **fields: str) -> None:
    result = git(env, "approve", lines(**fields), helper_path, *config)
    assert result.returncode == 0 and result.stderr == "", result.stderr


def reject(env: Dict[str, str], helper_path: str = HELPER, *config: str, **fields: str) -> None:
    result = git(env, "reject", lines(**fields), helper_path, *config)
    assert result.returncode == 0 and result.stderr == "", result.stderr


def items(**attributes: str) -> List[Dict[str, str]]:
    """The items, locked or not, whose attributes include these: each as its
    attributes (``attribute.NAME``), ``label`` and ``schema``."""
    found = []
    for item in keyring_control.items(attributes):
        fields = {f"attribute.{k}": v for k, v in item["attributes"].items() if k != "xdg:schema"}
        fields.update(label=item["label"], schema=item["attributes"].get("xdg:schema", ""))
        found.append(fields)
    return found


# ---- git round trips -----------------------------------------------------------

def test_approve_then_fill_returns_the_credential(git_env: Dict[str, str], host: str) -> None:
    approve(git_env, protocol="https", host=host, username="alice", password="s3cret")
    assert fill(git_env, protocol="https", host=host) == {
        "protocol": "https", "host": host, "username": "alice", "password": "s3cret"}


def test_fill_of_an_unknown_host_finds_nothing(git_env: Dict[str, str], host: str) -> None:
    result = fill_fails(git_env, protocol="https", host=host)
    assert "terminal prompts disabled" in result.stderr


def test_items_are_git_credential_libsecrets(git_env: Dict[str, str], host: str) -> None:
    approve(git_env, protocol="https", host=f"{host}:8443", path="team/repo.git", username="alice", password="pw")
    approve(git_env, HELPER, "credential.useHttpPath=true", protocol="https", host=f"{host}:8443", path="team/repo.git",
            username="alice", password="pw")
    (item,) = [i for i in items(server=host) if "attribute.object" in i]
    assert item["schema"] == "org.gnome.keyring.NetworkPassword"
    assert item["label"] == f"Git: https://{host}:8443/team/repo.git"
    # KeePassXC adds attributes of its own (Title, Path, ...).
    assert {k: item.get(k) for k in GIT_ATTRIBUTES} == {
        "attribute.protocol": "https", "attribute.server": host, "attribute.port": "8443",
        "attribute.object": "team/repo.git", "attribute.user": "alice"}
    (hostwide,) = [i for i in items(server=host) if "attribute.object" not in i]
    assert hostwide["label"] == f"Git: https://{host}:8443/"


def test_approve_replaces_the_password(git_env: Dict[str, str], host: str) -> None:
    approve(git_env, protocol="https", host=host, username="alice", password="old")
    approve(git_env, protocol="https", host=host, username="alice", password="new")
    assert fill(git_env, protocol="https", host=host)["password"] == "new"
    assert len(items(server=host)) == 1


def test_several_users_per_host(git_env: Dict[str, str], host: str) -> None:
    approve(git_env, protocol="https", host=host, username="alice", password="alice-pw")
    time.sleep(1.1)  # modification times have one-second resolution
    approve(git_env, protocol="https", host=host, username="bob", password="bob-pw")
    assert fill(git_env, protocol="https", host=host, username="alice")["password"] == "alice-pw"
    assert fill(git_env, protocol="https", host=host, username="bob")["password"] == "bob-pw"
    # Without a username: the most recently stored.
    assert fill(git_env, protocol="https", host=host)["username"] == "bob"
    # Rejecting one user's password leaves the other's.
    reject(git_env, protocol="https", host=host, username="bob", password="bob-pw")
    assert fill(git_env, protocol="https", host=host) == {
        "protocol": "https", "host": host, "username": "alice", "password": "alice-pw"}


def test_ports_and_protocols_are_distinct(git_env: Dict[str, str], host: str) -> None:
    approve(git_env, protocol="https", host=f"{host}:8443", username="u", password="on-8443")
    fill_fails(git_env, protocol="https", host=f"{host}:9443")
    fill_fails(git_env, protocol="http", host=f"{host}:8443")
    assert fill(git_env, protocol="https", host=f"{host}:8443")["password"] == "on-8443"


def test_use_http_path_keeps_repositories_apart(git_env: Dict[str, str], host: str) -> None:
    with_path = "credential.useHttpPath=true"
    approve(git_env, HELPER, with_path, protocol="https", host=host, path="a.git", username="u", password="for-a")
    approve(git_env, HELPER, with_path, protocol="https", host=host, path="b.git", username="u", password="for-b")
    assert fill(git_env, HELPER, with_path, protocol="https", host=host, path="a.git")["password"] == "for-a"
    assert fill(git_env, HELPER, with_path, protocol="https", host=host, path="b.git")["password"] == "for-b"
    result = git(git_env, "fill", lines(protocol="https", host=host, path="c.git"), HELPER, with_path)
    assert result.returncode != 0
    # Without useHttpPath git sends no path: any repository's credential of the host.
    assert fill(git_env, protocol="https", host=host)["password"] in ("for-a", "for-b")


def test_reject_erases(git_env: Dict[str, str], host: str) -> None:
    approve(git_env, protocol="https", host=host, username="alice", password="s3cret")
    reject(git_env, protocol="https", host=host, username="alice", password="s3cret")
    fill_fails(git_env, protocol="https", host=host)
    assert items(server=host) == []


def test_reject_of_a_stale_password_keeps_the_new_one(git_env: Dict[str, str], host: str) -> None:
    # Another git process approved a new password after this one filled the old.
    approve(git_env, protocol="https", host=host, username="alice", password="new")
    reject(git_env, protocol="https", host=host, username="alice", password="old")
    assert fill(git_env, protocol="https", host=host)["password"] == "new"


def test_erase_without_a_password_erases_every_match(host: str) -> None:
    for user in ("alice", "bob"):
        assert helper("store", lines(protocol="https", host=host, username=user, password=user)).returncode == 0
    assert len(items(server=host)) == 2
    assert helper("erase", lines(protocol="https", host=host)).returncode == 0
    assert items(server=host) == []


def test_requests_that_pin_nothing_down_do_nothing(host: str) -> None:
    assert helper("store", lines(protocol="https", host=host, username="u", password="p")).returncode == 0
    for operation, text in [("erase", "\n"), ("erase", lines(password="p")), ("get", lines(protocol="https")),
                            ("store", lines(protocol="https", host=host, password="p")),
                            ("store", lines(protocol="https", host=host, username="u"))]:
        result = helper(operation, text)
        assert (result.returncode, result.stdout, result.stderr) == (0, "", "")
    assert len(items(server=host)) == 1
    assert helper("erase", lines(protocol="https", host=host)).returncode == 0


# ---- fields newer git sends (git 2.41 and later) -----------------------------

def test_expiry_and_refresh_token_round_trip(host: str) -> None:
    later = str(int(time.time()) + 3600)
    stored = lines(protocol="https", host=host, username="alice", password="token",
                   password_expiry_utc=later, oauth_refresh_token="refresh-me")
    assert helper("store", stored).returncode == 0
    result = helper("get", lines(protocol="https", host=host))
    assert result.stdout == f"username=alice\npassword=token\npassword_expiry_utc={later}\noauth_refresh_token=refresh-me\n"


def test_expired_password_is_not_returned(host: str) -> None:
    earlier = str(int(time.time()) - 60)
    assert helper("store", lines(protocol="https", host=host, username="alice", password="expired",
                                 password_expiry_utc=earlier)).returncode == 0
    result = helper("get", lines(protocol="https", host=host))
    assert (result.returncode, result.stdout) == (0, "")
    # An unexpired one of another user is.
    assert helper("store", lines(protocol="https", host=host, username="bob", password="fresh")).returncode == 0
    assert parse(helper("get", lines(protocol="https", host=host)).stdout)["password"] == "fresh"


def test_unknown_lines_and_operations_are_ignored(host: str) -> None:
    assert helper("store", "capability[]=authtype\nwwwauth[]=Basic realm=x\n"
                  + lines(protocol="https", host=host, username="u", password="p")).returncode == 0
    assert parse(helper("get", "capability[]=state\n" + lines(protocol="https", host=host)).stdout)["password"] == "p"
    result = helper("frobnicate", "")
    assert (result.returncode, result.stdout, result.stderr) == (0, "", "")


def test_a_line_without_equals_is_refused_without_repeating_it(host: str) -> None:
    result = helper("store", f"protocol=https\nhost={host}\nhunter2-secret\n\n")
    assert result.returncode != 0
    assert "hunter2" not in result.stderr and "invalid credential line" in result.stderr


def test_fields_that_are_not_utf8_are_refused_not_repaired(host: str) -> None:
    """A field's bytes name the credential: decoding `\\xff` into U+FFFD
    would read, replace or erase the credential of another host."""
    repaired = f"{host}.\ufffd"
    assert helper("store", lines(protocol="https", host=repaired, username="u", password="p")).returncode == 0
    for operation in ("get", "store", "erase"):
        result = subprocess.run([HELPER, operation], capture_output=True, timeout=BOUND,
                                input=f"protocol=https\nhost={host}.".encode() + b"\xff\nusername=u\npassword=q\n\n")
        assert (result.returncode != 0, result.stdout) == (True, b"")
        assert b"the credential's host is not UTF-8" in result.stderr
    assert parse(helper("get", lines(protocol="https", host=repaired)).stdout)["password"] == "p"
    assert helper("erase", lines(protocol="https", host=repaired, username="u")).returncode == 0


def test_a_secret_ending_in_cr_is_not_told_to_git(host: str) -> None:
    """git drops a line's last CR, so `password=p\\r` would reach git as `p`:
    such a credential is skipped, as one with a newline is (the fuzzer's
    finding, IntegrationTests/fuzz/regressions-git)."""
    assert helper("store", f"protocol=https\nhost={host}\nusername=u\npassword=p\r\r\n\n").returncode == 0
    result = helper("get", lines(protocol="https", host=host))
    assert (result.returncode, result.stdout) == (0, "")
    assert "ends in CR" in result.stderr


def test_input_ends_at_the_empty_line(host: str) -> None:
    """Someone typing a request ends it with an empty line, not end of input."""
    assert helper("store", lines(protocol="https", host=host, username="u", password="p")).returncode == 0
    process = subprocess.Popen([HELPER, "get"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(lines(protocol="https", host=host))
    process.stdin.flush()  # and left open
    try:
        process.wait(timeout=BOUND)  # a helper waiting for the end of input never exits
        assert process.stdout.read() == "username=u\npassword=p\n"
    finally:
        process.kill()
        process.stdin.close()
        process.wait()


def test_run_as_keychainkit_git_credential(host: str) -> None:
    keychainkit = str(Path(HELPER).resolve())
    assert subprocess.run([keychainkit, "git-credential", "store"], input=lines(
        protocol="https", host=host, username="u", password="via-keychainkit"), text=True, timeout=BOUND).returncode == 0
    assert parse(helper("get", lines(protocol="https", host=host)).stdout)["password"] == "via-keychainkit"


# ---- interop with git's own git-credential-libsecret ------------------------

needs_libsecret_helper = pytest.mark.skipif(
    not LIBSECRET, reason="git-credential-libsecret is not run on this server (see the module's description)")


@needs_libsecret_helper
def test_libsecret_helper_reads_what_keychainkit_stored(git_env: Dict[str, str], host: str) -> None:
    approve(git_env, HELPER, "credential.useHttpPath=true", protocol="https", host=f"{host}:444",
            path="r.git", username="alice", password="from-keychainkit")
    assert fill(git_env, LIBSECRET, "credential.useHttpPath=true", protocol="https", host=f"{host}:444",
                path="r.git")["password"] == "from-keychainkit"
    reject(git_env, LIBSECRET, "credential.useHttpPath=true", protocol="https", host=f"{host}:444",
           path="r.git", username="alice", password="from-keychainkit")
    assert items(server=host) == []


@needs_libsecret_helper
def test_keychainkit_reads_what_libsecret_helper_stored(git_env: Dict[str, str], host: str) -> None:
    approve(git_env, LIBSECRET, "credential.useHttpPath=true", protocol="https", host=f"{host}:444",
            path="r.git", username="alice", password="from-libsecret")
    assert fill(git_env, HELPER, "credential.useHttpPath=true", protocol="https", host=f"{host}:444",
                path="r.git") == {"protocol": "https", "host": f"{host}:444", "path": "r.git",
                                  "username": "alice", "password": "from-libsecret"}
    # Storing a new password replaces libsecret's item: one item, ours.
    approve(git_env, HELPER, "credential.useHttpPath=true", protocol="https", host=f"{host}:444",
            path="r.git", username="alice", password="changed")
    (item,) = items(server=host)
    assert fill(git_env, LIBSECRET, "credential.useHttpPath=true", protocol="https", host=f"{host}:444",
                path="r.git")["password"] == "changed"
    reject(git_env, HELPER, "credential.useHttpPath=true", protocol="https", host=f"{host}:444",
           path="r.git", username="alice", password="changed")
    assert items(server=host) == []


def test_newer_libsecret_helpers_items_are_read_and_replaced(git_env: Dict[str, str], host: str) -> None:
    """git 2.41 and later store org.git.Password items (made here with
    secret-tool, as that helper stores them)."""
    stored = secret_tool_store(
        [f"--label=Git: https://{host}/", "xdg:schema", "org.git.Password",
         "protocol", "https", "server", host, "user", "alice"],
        "from-newer-helper\npassword_expiry_utc=9999999999")
    assert stored.returncode == 0, stored.stderr
    assert helper("get", lines(protocol="https", host=host)).stdout == (
        "username=alice\npassword=from-newer-helper\npassword_expiry_utc=9999999999\n")
    approve(git_env, protocol="https", host=host, username="alice", password="replaced")
    (item,) = items(server=host)
    assert item["schema"] == "org.gnome.keyring.NetworkPassword"
    assert fill(git_env, protocol="https", host=host)["password"] == "replaced"


# ---- when the keyring cannot answer --------------------------------------------

@pytest.mark.parametrize("state", keyring_control.LOCK_STATES)
def test_locked_keyring_fails_fast_and_git_goes_on(git_env: Dict[str, str], host: str, state: str) -> None:
    approve(git_env, protocol="https", host=host, username="alice", password="s3cret")
    with keyring_control.locked(state):
        started = time.monotonic()
        direct = helper("get", lines(protocol="https", host=host), env=git_env)
        assert direct.returncode == 3, direct.stderr  # keychainkit's "locked"
        assert "locked" in direct.stderr and "s3cret" not in direct.stderr
        result = git(git_env, "fill", lines(protocol="https", host=host))
        elapsed = time.monotonic() - started
        assert result.returncode != 0 and "s3cret" not in result.stdout
        assert "locked" in result.stderr  # git shows the helper's message, then gives up on it
        # No prompt, no wait: well inside the bound (not a timing test: the
        # bound is what a hang would hit).
        assert elapsed < BOUND
        store = git(git_env, "approve", lines(protocol="https", host=host, username="alice", password="other"))
        assert "locked" in store.stderr
        # erase: nothing erased (checked below), and said
        erase = helper("erase", lines(protocol="https", host=host, username="alice"), env=git_env)
        assert erase.returncode == 3 and "locked" in erase.stderr, erase.stderr
    assert fill(git_env, protocol="https", host=host)["password"] == "s3cret"


def test_no_secret_service_fails_fast(git_env: Dict[str, str], host: str, tmp_path: Path) -> None:
    env = dict(git_env, DBUS_SESSION_BUS_ADDRESS=f"unix:path={tmp_path}/no-bus")
    direct = helper("get", lines(protocol="https", host=host), env=env)
    assert direct.returncode == 4, direct.stderr  # keychainkit's "unavailable"
    assert "Secret Service" in direct.stderr
    result = git(env, "fill", lines(protocol="https", host=host))
    assert result.returncode != 0


def test_helper_is_found_by_name_on_path(git_env: Dict[str, str], host: str) -> None:
    """`credential.helper keychainkit`, as the README says, runs
    git-credential-keychainkit from PATH."""
    env = dict(git_env, PATH=f"{Path(HELPER).parent}:{git_env['PATH']}")
    approve(env, "keychainkit", protocol="https", host=host, username="u", password="by-name")
    assert fill(env, "keychainkit", protocol="https", host=host)["password"] == "by-name"
