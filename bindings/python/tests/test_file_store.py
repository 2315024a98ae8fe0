"""Keychain.file: a keychain in an encrypted keyring file (kk_open_file), in
libsecret's file format, its master secret from bytes, a descriptor or the
systemd credential; and Keychain.persistence (kk_persistence_of).

Each test keeps its file under pytest's tmp_path: none touches the user's
default file, nor needs a Secret Service or a kernel keyring.
"""

from __future__ import annotations

import ctypes
import os
import pathlib
import shutil
import stat
import subprocess
import threading
import traceback
from typing import Any, Dict, List, Optional

import pytest

from keychainkit import (
    AccessDenied,
    ChangeEvent,
    CorruptStore,
    InvalidArgument,
    Keychain,
    KeychainClosed,
    KeychainError,
    NoMasterKey,
    ServerLogin,
    Status,
    WrongMasterKey,
)
from keychainkit import _ffi

MASTER = "MASTER-MARKER-4e1b7d"
"""The master secret of most tests: it must never appear in a repr, a str or
an exception's text."""

SECRET_TOOL = shutil.which("secret-tool")


def full_text(error: BaseException) -> str:
    """The exception's str, repr and whole printed traceback chain."""
    return str(error) + repr(error) + "".join(traceback.format_exception(type(error), error, error.__traceback__))


def mode(path: pathlib.Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture
def path(tmp_path: pathlib.Path) -> pathlib.Path:
    """A keyring file that does not exist yet."""
    return tmp_path / "test.keyring"


@pytest.fixture
def written(path: pathlib.Path) -> pathlib.Path:
    """A keyring file holding one item (service "S", account "A", value
    "v"), sealed with MASTER."""
    with Keychain.file(path, service="S", master=MASTER) as kc:
        kc["A"] = "v"
    assert path.is_file()
    return path


@pytest.fixture
def no_credential(monkeypatch: pytest.MonkeyPatch) -> None:
    """No systemd credential, whatever the environment of the run."""
    monkeypatch.delenv("CREDENTIALS_DIRECTORY", raising=False)


def pipe_holding(data: bytes) -> int:
    """The read end of a pipe holding ``data``, its write end closed (so
    reading it ends); the caller closes it."""
    read_end, write_end = os.pipe()
    try:
        if data:
            os.write(write_end, data)
    finally:
        os.close(write_end)
    return read_end


def secret_tool(arguments: List[str], path: pathlib.Path, master: str, stdin: Optional[bytes] = None) -> str:
    """Runs secret-tool on libsecret's file backend, on ``path`` sealed with
    ``master``, never on a Secret Service (no session bus address)."""
    if SECRET_TOOL is None:
        pytest.skip("secret-tool (libsecret-tools) is not installed")
    environment: Dict[str, str] = dict(os.environ)
    environment.pop("DBUS_SESSION_BUS_ADDRESS", None)
    environment.update(SECRET_BACKEND="file", SECRET_FILE_TEST_PATH=str(path), SECRET_FILE_TEST_PASSWORD=master)
    done = subprocess.run(
        [SECRET_TOOL] + arguments, input=stdin, env=environment, capture_output=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr.decode(errors="replace")
    return done.stdout.decode()


# -- items ---------------------------------------------------------------------


def test_a_round_trip_of_set_get_list_and_delete(path: pathlib.Path) -> None:
    with Keychain.file(path, service="S", master=MASTER) as kc:
        assert kc.backend == "file"
        assert len(kc) == 0 and kc.value("A") is None
        kc["A"] = "one"
        kc["B"] = b"\x00binary\xff"
        kc.update_value("other", "A", service="T")
        assert kc["A"] == "one" and kc.value_bytes("B") == b"\x00binary\xff"
        assert kc.accounts() == ["A", "B"] and kc.accounts("T") == ["A"]
        assert "A" in kc and "C" not in kc
        kc["A"] = "two"
        assert kc["A"] == "two" and len(kc) == 2
        del kc["A"]
        assert kc.value("A") is None and kc.accounts() == ["B"]
        with pytest.raises(KeyError):
            del kc["A"]
        kc.remove_value("B")
        assert kc.accounts() == [] and kc.value("A", service="T") == "other"


def test_items_outlive_the_keychain(path: pathlib.Path) -> None:
    with Keychain.file(path, service="S", master=MASTER) as kc:
        kc["A"] = "kept"
    with Keychain.file(str(path), service="S", master=MASTER.encode()) as kc:
        assert dict(kc) == {"A": "kept"}


def test_a_second_keychain_on_the_file_sees_the_writes(path: pathlib.Path) -> None:
    with Keychain.file(path, service="S", master=MASTER) as first, Keychain.file(
        path, service="S", master=MASTER
    ) as second:
        assert second.value("A") is None
        first["A"] = "from the first"
        assert second["A"] == "from the first"
        second["B"] = "from the second"
        assert first.accounts() == ["A", "B"] and first["B"] == "from the second"
        first.remove_value("A")
        assert second.value("A") is None and second.accounts() == ["B"]


def test_the_file_has_mode_0600_and_a_new_directory_0700(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "new" / "test.keyring"
    with Keychain.file(path, service="S", master=MASTER) as kc:
        assert not path.parent.exists()  # nothing is created before the first write
        kc["A"] = "v"
    assert mode(path) == 0o600
    assert mode(path.parent) == 0o700


def test_server_logins_are_kept_in_the_file(path: pathlib.Path) -> None:
    login = ServerLogin("mail.example.com", "alice", protocol="imap", port=993)
    with Keychain.file(path, master=MASTER) as kc:
        kc.server_logins.set_password(login, "s3cret")
    with Keychain.file(path, master=MASTER) as kc:
        assert kc.server_logins.password(login) == "s3cret"
        assert kc.server_logins.accounts("mail.example.com") == ["alice"]


def test_observers_hear_another_keychains_write(path: pathlib.Path) -> None:
    heard = threading.Event()
    events: List[ChangeEvent] = []

    def on_change(event: ChangeEvent) -> None:
        events.append(event)
        if event.kind == "changed":
            heard.set()

    with Keychain.file(path, service="S", master=MASTER) as watcher, Keychain.file(
        path, service="S", master=MASTER
    ) as writer:
        with watcher.observe("A", on_change):
            writer["A"] = "new"
            assert heard.wait(10), f"no change heard, only {events}"
    assert [(event.kind, event.account, event.status) for event in events] == [("changed", "A", Status.OK)]


# -- the master secret -----------------------------------------------------------


def test_a_wrong_master_secret_fails_at_open_and_leaves_the_file(written: pathlib.Path) -> None:
    before = written.read_bytes()
    with pytest.raises(WrongMasterKey) as caught:
        Keychain.file(written, service="S", master="not the master")
    assert caught.value.status == Status.EWRONGKEY
    assert str(written) in caught.value.message
    assert written.read_bytes() == before
    with Keychain.file(written, service="S", master=MASTER) as kc:
        assert kc["A"] == "v"


def test_no_error_quotes_the_master_secret(written: pathlib.Path) -> None:
    wrong = MASTER + "-wrong"
    with pytest.raises(WrongMasterKey) as caught:
        Keychain.file(written, master=wrong)
    assert MASTER not in full_text(caught.value)
    with pytest.raises(InvalidArgument) as invalid:
        Keychain.file(written, master=MASTER + "\udc80")
    assert MASTER not in full_text(invalid.value) and "index 20" in invalid.value.message
    assert invalid.value.__context__ is None and invalid.value.__cause__ is None
    with pytest.raises(InvalidArgument) as both:
        Keychain.file(written, master=MASTER, credential=True)
    assert MASTER not in full_text(both.value)


def test_the_repr_holds_no_master_secret(path: pathlib.Path) -> None:
    with Keychain.file(path, service="S", master=MASTER) as kc:
        kc["A"] = "v"
        texts = [repr(kc), str(kc), repr(kc.server_logins)]
    assert not any(MASTER in text for text in texts)
    assert repr(kc) == "<keychainkit.Keychain file service='S' closed>"


@pytest.mark.parametrize("empty", ["", b"", bytearray(), memoryview(b"")])
def test_an_empty_master_secret_is_none(path: pathlib.Path, empty: Any) -> None:
    with pytest.raises(NoMasterKey) as caught:
        Keychain.file(path, master=empty)
    assert caught.value.status == Status.ENOKEY
    assert not path.exists()


@pytest.mark.parametrize("same", [MASTER.encode(), bytearray(MASTER.encode()), memoryview(MASTER.encode())])
def test_text_and_bytes_like_master_secrets_are_the_same_secret(written: pathlib.Path, same: Any) -> None:
    with Keychain.file(written, service="S", master=same) as kc:
        assert kc["A"] == "v"


def test_a_text_master_secret_is_utf8(path: pathlib.Path) -> None:
    with Keychain.file(path, service="S", master="pässwörd") as kc:
        kc["A"] = "v"
    with Keychain.file(path, service="S", master="pässwörd".encode("utf-8")) as kc:
        assert kc["A"] == "v"
    with pytest.raises(WrongMasterKey):
        Keychain.file(path, master="pässwörd".encode("latin-1"))


def test_a_master_secret_may_hold_any_bytes(path: pathlib.Path) -> None:
    master = bytes(range(256))
    with Keychain.file(path, service="S", master=master) as kc:
        kc["A"] = "v"
    with Keychain.file(path, service="S", master=master) as kc:
        assert kc["A"] == "v"
    with pytest.raises(WrongMasterKey):
        Keychain.file(path, master=master[:1])  # a NUL byte does not end it


def test_a_master_secret_of_4096_bytes_at_most(path: pathlib.Path) -> None:
    with Keychain.file(path, service="S", master=b"m" * 4096) as kc:
        kc["A"] = "v"
    with pytest.raises(InvalidArgument):
        Keychain.file(path, master=b"m" * 4097)


def test_the_master_buffer_is_wiped_once_the_library_took_it(
    path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real = _ffi.kk_open_file
    seen: List[Any] = []

    def spy(options: Any, out: Any) -> int:
        structure = options._obj  # byref(options): the kk_file_options
        seen.append((structure, ctypes.string_at(structure.master, structure.master_len)))
        return int(real(options, out))

    monkeypatch.setattr(_ffi, "kk_open_file", spy)
    with Keychain.file(path, master=MASTER) as kc:
        kc["A"] = "v"
    with pytest.raises(WrongMasterKey):
        Keychain.file(path, master=MASTER + "-wrong")
    assert [passed for _, passed in seen] == [MASTER.encode(), MASTER.encode() + b"-wrong"]
    for structure, passed in seen:  # the structure keeps its buffer alive
        assert ctypes.string_at(structure.master, structure.master_len) == bytes(len(passed))


def test_a_master_secret_from_a_descriptor(path: pathlib.Path) -> None:
    fd = pipe_holding(MASTER.encode())
    try:
        with Keychain.file(path, service="S", master_fd=fd) as kc:
            kc["A"] = "v"
        os.fstat(fd)  # not closed by the library
    finally:
        os.close(fd)
    with Keychain.file(path, service="S", master=MASTER) as kc:
        assert kc["A"] == "v"


def test_a_final_newline_on_the_descriptor_is_part_of_the_secret(written: pathlib.Path) -> None:
    fd = pipe_holding(MASTER.encode() + b"\n")
    try:
        with pytest.raises(WrongMasterKey):
            Keychain.file(written, master_fd=fd)
    finally:
        os.close(fd)


def test_an_empty_descriptor_has_no_master_secret(path: pathlib.Path) -> None:
    fd = pipe_holding(b"")
    try:
        with pytest.raises(NoMasterKey) as caught:
            Keychain.file(path, master_fd=fd)
    finally:
        os.close(fd)
    assert caught.value.status == Status.ENOKEY
    assert not path.exists()


def test_a_master_secret_from_the_systemd_credential(
    path: pathlib.Path, tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    credentials = tmp_path / "credentials"
    credentials.mkdir()
    (credentials / "keychainkit.master").write_bytes(MASTER.encode())
    monkeypatch.setenv("CREDENTIALS_DIRECTORY", str(credentials))
    with Keychain.file(path, service="S", credential=True) as kc:
        kc["A"] = "v"
    with Keychain.file(path, service="S") as kc:  # automatic: the credential
        assert kc["A"] == "v"
    monkeypatch.delenv("CREDENTIALS_DIRECTORY")
    with Keychain.file(path, service="S", master=MASTER) as kc:
        assert kc["A"] == "v"


def test_without_the_systemd_credential_there_is_no_master_secret(path: pathlib.Path, no_credential: None) -> None:
    for options in ({"credential": True}, {}):
        with pytest.raises(NoMasterKey) as caught:
            Keychain.file(path, **options)
        assert "keychainkit.master" in caught.value.message
    assert not path.exists()


def test_a_credential_directory_without_the_credential_has_no_master_secret(
    path: pathlib.Path, tmp_path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CREDENTIALS_DIRECTORY", str(tmp_path))
    with pytest.raises(NoMasterKey):
        Keychain.file(path, credential=True)


# -- the file --------------------------------------------------------------------


def test_a_file_others_may_read_is_refused(written: pathlib.Path) -> None:
    written.chmod(0o644)
    before = written.read_bytes()
    with pytest.raises(AccessDenied) as caught:
        Keychain.file(written, master=MASTER)
    assert caught.value.status == Status.EDENIED and "chmod 600" in caught.value.message
    assert written.read_bytes() == before and mode(written) == 0o644
    written.chmod(0o600)
    with Keychain.file(written, service="S", master=MASTER) as kc:
        assert kc["A"] == "v"


def test_a_file_that_is_not_a_keyring_is_corrupt(path: pathlib.Path) -> None:
    garbage = b"this is not a keyring file\n" * 10
    path.write_bytes(garbage)
    path.chmod(0o600)
    with pytest.raises(CorruptStore) as caught:
        Keychain.file(path, master=MASTER)
    assert caught.value.status == Status.ECORRUPT and str(path) in caught.value.message
    assert path.read_bytes() == garbage


def test_a_truncated_keyring_file_is_corrupt(written: pathlib.Path) -> None:
    written.write_bytes(written.read_bytes()[:-7])
    with pytest.raises(CorruptStore):
        Keychain.file(written, master=MASTER)


def test_paths_may_be_str_bytes_or_path_like(path: pathlib.Path) -> None:
    with Keychain.file(path, service="S", master=MASTER) as kc:
        kc["A"] = "v"
    for same in (str(path), os.fsencode(path)):
        with Keychain.file(same, service="S", master=MASTER) as kc:
            assert kc["A"] == "v"


@pytest.mark.parametrize("bad", ["", "a\0b", b"a\0b", 42])
def test_a_bad_path_is_an_invalid_argument(bad: Any) -> None:
    with pytest.raises(InvalidArgument):
        Keychain.file(bad, master=MASTER)


# -- options ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "options",
    [
        {"master": MASTER, "master_fd": 0},
        {"master": MASTER, "credential": True},
        {"master_fd": 0, "credential": True},
        {"master": MASTER, "master_fd": 0, "credential": True},
        {"master": b"", "credential": True},
        {"master": MASTER, "portal": True},
        {"credential": True, "portal": True},
    ],
)
def test_more_than_one_master_source_is_refused_before_calling_c(
    path: pathlib.Path, monkeypatch: pytest.MonkeyPatch, options: Dict[str, Any]
) -> None:
    called: List[Any] = []
    monkeypatch.setattr(_ffi, "kk_open_file", lambda *arguments: called.append(arguments) or Status.EUNKNOWN)
    with pytest.raises(InvalidArgument) as caught:
        Keychain.file(path, **options)
    assert isinstance(caught.value, ValueError) and "at most one master secret source" in caught.value.message
    assert called == [] and not path.exists()


@pytest.mark.parametrize(
    "options",
    [
        {"master": 42},
        {"master": ["a"]},
        {"master_fd": -1},
        {"master_fd": True},
        {"master_fd": "0"},
        {"master_fd": 2**31},
        {"credential": 1},
        {"credential": "yes"},
        {"lock_timeout": 0},
        {"lock_timeout": "1"},
        {"master": MASTER, "service": 42},
    ],
)
def test_bad_options_are_invalid_arguments(path: pathlib.Path, options: Dict[str, Any]) -> None:
    with pytest.raises(InvalidArgument):
        Keychain.file(path, **options)


def test_a_lock_timeout_is_accepted(path: pathlib.Path) -> None:
    with Keychain.file(path, service="S", master=MASTER, lock_timeout=0.5) as kc:
        kc["A"] = "v"
        assert kc["A"] == "v"


def test_no_option_is_positional_but_the_path(path: pathlib.Path) -> None:
    with pytest.raises(TypeError):
        Keychain.file(path, "S", MASTER)  # type: ignore[misc]


# -- libsecret -------------------------------------------------------------------


def test_secret_tool_reads_what_the_binding_wrote(path: pathlib.Path) -> None:
    with Keychain.file(path, service="kk-py-file", master=MASTER) as kc:
        kc["alice"] = "written by keychainkit"
    assert secret_tool(["lookup", "service", "kk-py-file", "username", "alice"], path, MASTER) == "written by keychainkit"


def test_the_binding_reads_what_secret_tool_stored(path: pathlib.Path) -> None:
    secret_tool(
        ["store", "--label", "from secret-tool", "service", "kk-py-file", "username", "bob"],
        path,
        MASTER,
        stdin=b"stored by secret-tool",
    )
    assert path.is_file()
    with Keychain.file(path, service="kk-py-file", master=MASTER) as kc:
        assert kc["bob"] == "stored by secret-tool" and kc.accounts() == ["bob"]
    with pytest.raises(WrongMasterKey):
        Keychain.file(path, master="not the master")


def test_an_open_keychain_sees_secret_tools_changes(path: pathlib.Path) -> None:
    with Keychain.file(path, service="kk-py-file", master=MASTER) as kc:
        kc["carol"] = "ours"
        assert kc.accounts() == ["carol"]
        secret_tool(
            ["store", "--label", "theirs", "service", "kk-py-file", "username", "dave"],
            path,
            MASTER,
            stdin=b"stored meanwhile",
        )
        assert kc.accounts() == ["carol", "dave"] and kc["dave"] == "stored meanwhile"
        secret_tool(["clear", "service", "kk-py-file", "username", "carol"], path, MASTER)
        assert kc.value("carol") is None and kc.accounts() == ["dave"]
        kc["dave"] = "replaced by keychainkit"
    assert secret_tool(["lookup", "service", "kk-py-file", "username", "dave"], path, MASTER) == "replaced by keychainkit"


# -- persistence -----------------------------------------------------------------


def test_persistence_of_each_backend(path: pathlib.Path) -> None:
    with Keychain.in_memory() as kc:
        assert kc.persistence == "until close"
    with Keychain.file(path, master=MASTER) as kc:
        assert kc.persistence == "persistent"
    # Decided from the handle alone: no bus, no keyring is used.
    with Keychain(collection="default") as kc:
        assert kc.persistence == "persistent"
    with Keychain(collection="session") as kc:
        assert kc.persistence == "until logout"
    with Keychain.kernel_keyring(keyring="persistent") as kc:
        assert kc.persistence == "until reboot"
    for keyring in ("user", "session"):
        with Keychain.kernel_keyring(keyring=keyring) as kc:
            assert kc.persistence == "until logout"


def test_persistence_of_a_closed_keychain_raises() -> None:
    kc = Keychain.in_memory()
    kc.close()
    with pytest.raises(KeychainClosed):
        kc.persistence


def test_an_unknown_persistence_is_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    def newer(pointer: Any, out: Any) -> int:
        out._obj.value = 99
        return Status.OK

    monkeypatch.setattr(_ffi, "kk_persistence_of", newer)
    with Keychain.in_memory() as kc, pytest.raises(KeychainError) as caught:
        kc.persistence
    assert caught.value.status == Status.EUNKNOWN and "99" in caught.value.message


def test_outside_a_sandbox_the_portal_needs_a_portal_on_the_bus(
    path: pathlib.Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # No bus at all: the portal is asked for, and fails at once, saying so.
    monkeypatch.setenv("DBUS_SESSION_BUS_ADDRESS", f"unix:path={path}.no-bus")
    with pytest.raises(NoMasterKey) as caught:
        Keychain.file(path, portal=True)
    assert "Secret portal" in caught.value.message
    assert not path.exists()


def test_a_master_cached_in_the_kernel_opens_the_file_later(path: pathlib.Path, no_credential: None) -> None:
    kernel = Keychain.kernel_keyring(keyring="persistent", service="keychainkit-file-master")
    try:
        with Keychain.file(path, master=MASTER, cache_master=True) as first:
            first["a"] = "cached"
        assert kernel[str(path)] == MASTER
        with Keychain.file(path) as later:  # no source named: the kernel's copy
            assert later["a"] == "cached"
    finally:
        kernel.pop(str(path), None)
