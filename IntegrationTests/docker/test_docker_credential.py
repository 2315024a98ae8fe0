# SPDX-License-Identifier: MIT
"""docker-credential-keychainkit as Docker and Podman run it: the
docker-credential-helpers protocol byte for byte (compared with Debian's
docker-credential-secretservice 0.6.4 on the same inputs), items shared
with that helper both ways, a real `podman login` / `logout` against a
local docker-registry, and a locked keyring or no Secret Service — a clear
message and status, never a hang.

Runs inside scripts/with-secret-service.sh (IntegrationTests/docker/run.sh):
KEYCHAINKIT_DOCKER_HELPER is the helper (a link named
docker-credential-keychainkit).
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import uuid
from pathlib import Path
from typing import Dict, Iterator, List, Optional

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bindings" / "python" / "tests"))
import keyring_control  # noqa: E402

HELPER = os.environ["KEYCHAINKIT_DOCKER_HELPER"]
UPSTREAM = shutil.which("docker-credential-secretservice")
# Every call is bounded: a helper that hangs fails its test, not the run.
BOUND = 30


def run(helper: str, action: str, stdin: bytes = b"", env: Optional[Dict[str, str]] = None) -> subprocess.CompletedProcess:
    return subprocess.run([helper, action], input=stdin, capture_output=True, timeout=BOUND, env=env)


def ours(action: str, stdin: bytes = b"", env: Optional[Dict[str, str]] = None) -> subprocess.CompletedProcess:
    return run(HELPER, action, stdin, env)


def theirs(action: str, stdin: bytes = b"") -> subprocess.CompletedProcess:
    assert UPSTREAM, "docker-credential-secretservice is not installed (golang-docker-credential-helpers)"
    return run(UPSTREAM, action, stdin)


def credentials(server: str, username: str, secret: str) -> bytes:
    return (json.dumps({"ServerURL": server, "Username": username, "Secret": secret}) + "\n").encode()


@pytest.fixture
def server() -> Iterator[str]:
    """A server URL no other test uses, erased afterwards."""
    url = f"registry-{uuid.uuid4().hex[:12]}.example:5000"
    yield url
    ours("erase", url.encode())


# ---------------------------------------------------------------------------
# The protocol
# ---------------------------------------------------------------------------

def test_store_get_erase_round_trip(server: str) -> None:
    stored = ours("store", credentials(server, "alice", "s3cret"))
    assert (stored.returncode, stored.stdout, stored.stderr) == (0, b"", b"")
    got = ours("get", server.encode())
    assert got.returncode == 0, got.stdout
    assert got.stdout == b'{"ServerURL":"%s","Username":"alice","Secret":"s3cret"}\n' % server.encode()
    assert ours("erase", server.encode()).returncode == 0
    missing = ours("get", server.encode())
    assert (missing.returncode, missing.stdout) == (1, b"credentials not found in native keychain\n")


@pytest.mark.parametrize("stdin", [b"", b"  \n", b"\n\n"])
def test_get_and_erase_without_a_server_url(stdin: bytes) -> None:
    for action in ("get", "erase"):
        result = ours(action, stdin)
        assert (result.returncode, result.stdout, result.stderr) == (1, b"no credentials server URL\n", b"")


def test_erasing_what_is_not_there_succeeds(server: str) -> None:
    # Podman 4.3 crashes (a Go stack overflow) when a helper's erase fails.
    result = ours("erase", server.encode())
    assert (result.returncode, result.stdout) == (0, b"")


def test_a_server_url_that_is_not_utf8_names_no_other_server(server: str) -> None:
    # It used to be repaired into U+FFFD: get answered, and erase deleted,
    # the login of the server whose name holds U+FFFD there.
    lookalike = server.replace(".", "\ufffd.", 1)
    assert ours("store", credentials(lookalike, "alice", "s3cret")).returncode == 0
    raw = lookalike.encode().replace("\ufffd".encode(), b"\xfe")
    got = ours("get", raw)
    assert (got.returncode, got.stdout) == (1, b"credentials not found in native keychain\n")
    assert ours("erase", raw.replace(b"\xfe", b"\xff")).returncode == 0  # nothing there to erase
    assert json.loads(ours("get", lookalike.encode()).stdout)["Secret"] == "s3cret"  # kept
    stored = ours("store", b'{"ServerURL":"' + raw + b'","Username":"bob","Secret":"x"}')
    assert (stored.returncode, stored.stdout) == (1, b"the server URL or username is not valid UTF-8\n")
    assert json.loads(ours("get", lookalike.encode()).stdout)["Username"] == "alice"
    assert ours("erase", lookalike.encode()).returncode == 0


@pytest.mark.parametrize("stdin, message", [
    (b'{"Username":"u","Secret":"s"}', b"no credentials server URL\n"),
    (b'{"ServerURL":"","Username":"u","Secret":"s"}', b"no credentials server URL\n"),
    (b'{"ServerURL":"x.example","Secret":"s"}', b"no credentials username\n"),
    (b"null", b"no credentials server URL\n"),
    (b"", b"EOF\n"),
    (b'{"ServerURL":"x.example"', b"unexpected EOF\n"),
    (b"{x", b"invalid character 'x' looking for beginning of object key string\n"),
    (b"nul", b"unexpected EOF\n"),
    (b"[1]", b"json: cannot unmarshal array into Go value of type credentials.Credentials\n"),
    (b'{"ServerURL":1}', b"json: cannot unmarshal number into Go struct field Credentials.ServerURL of type string\n"),
    (b'{"ServerURL":01}', b"invalid character '1' after object key:value pair\n"),
    (b'{"ServerURL":1.}', b"invalid character '}' after decimal point in numeric literal\n"),
    (b'{"ServerURL":-}', b"invalid character '}' in numeric literal\n"),
    (b'{"ServerURL":1e+}', b"invalid character '}' in exponent of numeric literal\n"),
    (b'{"ServerURL":"a\x01"}', b"invalid character '\\x01' in string literal\n"),
    (b"[" * 10001, b"invalid character '[' exceeded max depth\n"),
])
def test_bad_store_input_is_the_upstream_helpers_error(stdin: bytes, message: bytes) -> None:
    result = ours("store", stdin)
    assert (result.returncode, result.stdout, result.stderr) == (1, message, b"")
    if UPSTREAM:  # the same bytes as Debian's helper prints
        upstream = theirs("store", stdin)
        assert (upstream.returncode, upstream.stdout) == (1, message)


def test_the_last_member_naming_a_field_wins_and_null_changes_nothing(server: str) -> None:
    stdin = b'{"ServerURL":"%s","Username":"u","Secret":"a","secret":"b","Username":null}' % server.encode()
    assert ours("store", stdin).returncode == 0
    assert json.loads(ours("get", server.encode()).stdout) == {"ServerURL": server, "Username": "u", "Secret": "b"}


def test_field_names_are_matched_as_go_does(server: str) -> None:
    # Exact first, else case-insensitively; unknown fields and what follows
    # the first value are ignored.
    stdin = b'{"serverurl":"%s","USERNAME":"carol","Secret":"a","Extra":[1,{"x":null}]} trailing' % server.encode()
    assert ours("store", stdin).returncode == 0
    assert json.loads(ours("get", server.encode()).stdout)["Username"] == "carol"


def test_unicode_escapes_and_a_url_with_a_port_and_path() -> None:
    server = f"https://r-{uuid.uuid4().hex[:8]}.example:5000/v2/"
    secret = "pässwörd 🔑 <&> \" \\ \t\u2028"
    stdin = b'{"ServerURL":"%s","Username":"\\u00fcser","Secret":%s}' % (
        server.encode(), json.dumps(secret).encode())  # json.dumps writes \uXXXX and surrogate pairs
    try:
        assert ours("store", stdin).returncode == 0
        got = ours("get", server.encode())
        assert json.loads(got.stdout) == {"ServerURL": server, "Username": "üser", "Secret": secret}
        # Go's encoder: raw UTF-8, HTML-safe escapes, \u2028.
        assert b"\\u003c\\u0026\\u003e" in got.stdout and "🔑".encode() in got.stdout and b"\\u2028" in got.stdout
        # Lines are joined and white space trimmed, as upstream reads stdin.
        half = len(server) // 2
        assert ours("get", f"  {server[:half]}\r\n{server[half:]}\n".encode()).returncode == 0
        # The URL is taken as given: Docker and Podman normalise it first.
        assert ours("get", server.rstrip("/").encode()).returncode == 1
    finally:
        ours("erase", server.encode())


def test_huge_input_is_refused_and_nothing_is_stored(server: str) -> None:
    huge = credentials(server, "alice", "x" * (2 << 20))
    result = ours("store", huge)
    assert result.returncode == 1 and b"longer than" in result.stdout
    assert ours("get", server.encode()).returncode == 1


def test_one_item_per_server_url(server: str) -> None:
    assert ours("store", credentials(server, "alice", "one")).returncode == 0
    assert ours("store", credentials(server, "bob", "two")).returncode == 0
    assert ours("store", credentials(server, "bob", "three")).returncode == 0
    items = keyring_control.items({"server": server})
    assert len(items) == 1, items
    assert json.loads(ours("get", server.encode()).stdout) == {"ServerURL": server, "Username": "bob", "Secret": "three"}


def test_list_names_each_server_with_its_username(server: str) -> None:
    other = f"other-{uuid.uuid4().hex[:8]}.example"
    try:
        assert ours("store", credentials(server, "alice", "s")).returncode == 0
        assert ours("store", credentials(other, "bob", "t")).returncode == 0
        listed = ours("list")
        assert listed.returncode == 0 and listed.stdout.endswith(b"}\n")
        logins = json.loads(listed.stdout)
        assert logins[server] == "alice" and logins[other] == "bob"
        assert list(logins) == sorted(logins)  # Go's map order: sorted keys
        assert "s" not in logins.values()
    finally:
        ours("erase", other.encode())


def test_version_usage_and_unknown_actions() -> None:
    version = subprocess.run([HELPER, "version"], capture_output=True, timeout=BOUND)
    assert version.returncode == 0 and version.stdout.startswith(b"docker-credential-keychainkit (keychainkit) ")
    unknown = subprocess.run([HELPER, "frobnicate"], capture_output=True, timeout=BOUND)
    assert (unknown.returncode, unknown.stdout) == (1, b"Unknown credential action `frobnicate`\n")
    bare = subprocess.run([HELPER], capture_output=True, timeout=BOUND)
    assert bare.returncode == 1 and bare.stdout.startswith(b"Usage: docker-credential-keychainkit <store|get|erase|list|version>")
    helped = subprocess.run([HELPER, "--help"], capture_output=True, timeout=BOUND)
    assert helped.returncode == 0 and b"credHelpers" in helped.stdout


def test_the_keychainkit_program_runs_it_too(server: str) -> None:
    tool = Path(HELPER).resolve()
    stored = subprocess.run([str(tool), "docker-credential", "store"], input=credentials(server, "dave", "d"),
                            capture_output=True, timeout=BOUND)
    assert stored.returncode == 0, stored.stdout
    assert json.loads(ours("get", server.encode()).stdout)["Username"] == "dave"


# ---------------------------------------------------------------------------
# Shared with docker-credential-secretservice (Debian 12's, 0.6.4)
# ---------------------------------------------------------------------------

needs_upstream = pytest.mark.skipif(UPSTREAM is None, reason="golang-docker-credential-helpers is not installed")


@needs_upstream
def test_upstream_reads_what_we_store(server: str) -> None:
    assert ours("store", credentials(server, "alice", "s3cr<e>t ü")).returncode == 0
    mine, upstream = ours("get", server.encode()), theirs("get", server.encode())
    assert upstream.returncode == 0, upstream.stdout
    assert upstream.stdout == mine.stdout  # byte for byte
    item = keyring_control.items({"server": server})[0]
    assert item["attributes"] == {"server": server, "username": "alice", "docker_cli": "1",
                                  "label": "Docker Credentials", "xdg:schema": "io.docker.Credentials"}
    assert item["label"] == server  # 0.6.4's label: the server URL
    assert theirs("erase", server.encode()).returncode == 0
    assert ours("get", server.encode()).returncode == 1


@needs_upstream
def test_we_read_what_upstream_stores(server: str) -> None:
    assert theirs("store", credentials(server, "bob", "t0ken/\u00e9")).returncode == 0
    mine, upstream = ours("get", server.encode()), theirs("get", server.encode())
    assert mine.returncode == 0 and mine.stdout == upstream.stdout
    listed = json.loads(ours("list").stdout)
    assert listed[server] == "bob"
    assert json.loads(theirs("list").stdout)[server] == "bob"
    # Storing over upstream's item leaves the server one item.
    assert ours("store", credentials(server, "bob", "new")).returncode == 0
    assert len(keyring_control.items({"server": server})) == 1
    assert json.loads(theirs("get", server.encode()).stdout)["Secret"] == "new"
    assert ours("erase", server.encode()).returncode == 0
    assert theirs("get", server.encode()).stdout == b"credentials not found in native keychain\n"


@needs_upstream
@pytest.mark.parametrize("stdin", [b"", b"  ", b"\n"])
def test_missing_url_texts_match_upstream(stdin: bytes) -> None:
    for action in ("get", "erase"):
        assert ours(action, stdin).stdout == theirs(action, stdin).stdout


# ---------------------------------------------------------------------------
# A real podman login / logout against a local docker-registry
# ---------------------------------------------------------------------------

def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def registry(tmp_path: Path) -> Iterator[str]:
    """docker-registry on 127.0.0.1:<port>, plain HTTP, htpasswd (bcrypt)
    auth with alice / s3cret-pw; yields its host:port."""
    for program in ("docker-registry", "htpasswd", "podman"):
        assert shutil.which(program), f"{program} is not installed (scripts/install-deps.sh)"
    port = free_port()
    htpasswd = subprocess.run(["htpasswd", "-Bbn", "alice", "s3cret-pw"], capture_output=True, check=True, timeout=BOUND)
    (tmp_path / "htpasswd").write_bytes(htpasswd.stdout)
    (tmp_path / "registry.yml").write_text(
        f"version: 0.1\nlog:\n  level: warn\nstorage:\n  filesystem:\n    rootdirectory: {tmp_path}/data\n"
        f"http:\n  addr: 127.0.0.1:{port}\nauth:\n  htpasswd:\n    realm: test\n    path: {tmp_path}/htpasswd\n")
    log = open(tmp_path / "registry.log", "wb")
    process = subprocess.Popen(["docker-registry", "serve", str(tmp_path / "registry.yml")], stdout=log, stderr=log)
    try:
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                time.sleep(0.1)
        else:
            pytest.fail("the registry did not start: " + (tmp_path / "registry.log").read_text())
        yield f"127.0.0.1:{port}"
    finally:
        process.terminate()
        process.wait(timeout=BOUND)


@pytest.fixture
def podman_env(tmp_path: Path, registry: str) -> Dict[str, str]:
    """Podman with every state under tmp_path, the helper on PATH, and an
    auth.json naming it for the registry through credHelpers."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "docker-credential-keychainkit").symlink_to(Path(HELPER).resolve())
    (tmp_path / "storage.conf").write_text(
        f'[storage]\ndriver = "vfs"\nrunroot = "{tmp_path}/run"\ngraphroot = "{tmp_path}/root"\n')
    (tmp_path / "containers.conf").write_text(
        f'[engine]\ntmp_dir = "{tmp_path}/tmp"\nevents_logger = "none"\ncgroup_manager = "cgroupfs"\n')
    auth = tmp_path / "auth.json"
    auth.write_text(json.dumps({"credHelpers": {registry: "keychainkit"}}))
    env = dict(os.environ)
    env.update(PATH=f"{bin_dir}:{env['PATH']}", CONTAINERS_STORAGE_CONF=str(tmp_path / "storage.conf"),
               CONTAINERS_CONF=str(tmp_path / "containers.conf"), REGISTRY_AUTH_FILE=str(auth),
               XDG_RUNTIME_DIR=str(tmp_path / "xdg-run"), HOME=str(tmp_path))
    (tmp_path / "xdg-run").mkdir(mode=0o700)
    return env


def podman(env: Dict[str, str], *arguments: str, stdin: bytes = b"") -> subprocess.CompletedProcess:
    return subprocess.run(["podman", *arguments], input=stdin, capture_output=True, timeout=BOUND * 2, env=env)


def test_podman_login_stores_in_the_keyring_not_in_auth_json(podman_env: Dict[str, str], registry: str) -> None:
    auth = Path(podman_env["REGISTRY_AUTH_FILE"])
    before = auth.read_bytes()
    try:
        login = podman(podman_env, "login", "--tls-verify=false", "--username", "alice", "--password-stdin", registry,
                       stdin=b"s3cret-pw\n")
        assert login.returncode == 0, login.stderr
        assert auth.read_bytes() == before  # nothing of the login in auth.json
        assert b"s3cret-pw" not in auth.read_bytes() and b"czNjcmV0LXB3" not in auth.read_bytes()
        got = ours("get", registry.encode())
        assert json.loads(got.stdout) == {"ServerURL": registry, "Username": "alice", "Secret": "s3cret-pw"}
        who = podman(podman_env, "login", "--get-login", registry)
        assert (who.returncode, who.stdout) == (0, b"alice\n"), who.stderr

        logout = podman(podman_env, "logout", registry)
        assert logout.returncode == 0, logout.stderr
        assert ours("get", registry.encode()).returncode == 1
        gone = podman(podman_env, "login", "--get-login", registry)
        assert gone.returncode != 0 and b"not logged into" in gone.stderr
    finally:
        ours("erase", registry.encode())


def test_podman_login_with_a_wrong_password_stores_nothing(podman_env: Dict[str, str], registry: str) -> None:
    login = podman(podman_env, "login", "--tls-verify=false", "--username", "alice", "--password-stdin", registry,
                   stdin=b"wrong\n")
    assert login.returncode != 0
    assert ours("get", registry.encode()).returncode == 1


# ---------------------------------------------------------------------------
# No Secret Service, a locked keyring: a clear message and status, no hang
# ---------------------------------------------------------------------------

def test_no_secret_service_fails_fast(tmp_path: Path) -> None:
    env = dict(os.environ, DBUS_SESSION_BUS_ADDRESS=f"unix:path={tmp_path}/no-bus")
    for action, stdin in (("get", b"x.example"), ("store", credentials("x.example", "u", "s")), ("erase", b"x.example"),
                          ("list", b"")):
        started = time.monotonic()
        result = ours(action, stdin, env)
        assert time.monotonic() - started < 5
        assert result.returncode == 4, (action, result.stdout)
        assert b"no Secret Service" in result.stdout or b"unavailable" in result.stdout, result.stdout


@pytest.mark.parametrize("state", keyring_control.LOCK_STATES)
def test_locked_keyring_is_said_not_absent(server: str, state: str) -> None:
    assert ours("store", credentials(server, "alice", "s3cret")).returncode == 0
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}  # no unlock dialog
    with keyring_control.locked(state):
        for action, stdin in (("get", server.encode()), ("store", credentials(server, "alice", "new")),
                              ("erase", server.encode())):
            started = time.monotonic()
            result = ours(action, stdin, env)
            assert time.monotonic() - started < 10
            assert result.returncode == 3, (action, result.stdout)
            assert b"locked" in result.stdout and b"s3cret" not in result.stdout
            assert b"credentials not found" not in result.stdout
        # Listing needs no secret: a daemon that shows the attributes is
        # listed; one that shows only their hashes cannot be, and says so.
        listed = ours("list", b"", env)
        if state == "lock":
            assert listed.returncode == 0 and json.loads(listed.stdout)[server] == "alice", listed.stdout
        else:
            assert listed.returncode == 3 and b"locked" in listed.stdout, listed.stdout
    assert json.loads(ours("get", server.encode()).stdout)["Secret"] == "s3cret"
