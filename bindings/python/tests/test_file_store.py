# SPDX-License-Identifier: MIT
"""Keychain.file: a keychain in an encrypted keyring file (kk_open_file),
its master secret from bytes, a descriptor or the systemd credential; and
Keychain.persistence (kk_persistence_of). Here, the binding's part: master
secrets as str or bytes-like, wiped and never quoted, the options checked
before calling C, paths, and the persistence's name. The file backend's
behaviour is the C suite's (which runs on it too): IntegrationTests/c/test_file_store.c.

Each test keeps its file under pytest's tmp_path: none touches the user's
default file, nor needs a Secret Service or a kernel keyring.
"""

from __future__ import annotations

import ctypes
import os
import pathlib
import traceback
from typing import Any, Dict, List

import pytest

from keychainkit import (
    InvalidArgument,
    Keychain,
    KeychainClosed,
    KeychainError,
    NoMasterKey,
    Status,
    WrongMasterKey,
)
from keychainkit import _ffi
from support import mapping_flags

MASTER = "MASTER-MARKER-4e1b7d"
"""The master secret of most tests: it must never appear in a repr, a str or
an exception's text."""


def full_text(error: BaseException) -> str:
    """The exception's str, repr and whole printed traceback chain."""
    return str(error) + repr(error) + "".join(traceback.format_exception(type(error), error, error.__traceback__))


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


# -- the master secret -----------------------------------------------------------


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


@pytest.mark.parametrize("master", [MASTER, bytearray(MASTER.encode())])
def test_the_master_buffer_is_out_of_core_dumps_and_gone_once_the_library_took_it(
    path: pathlib.Path, monkeypatch: pytest.MonkeyPatch, master: Any
) -> None:
    real, seen = _ffi.kk_open_file, []

    def spy(options: Any, out: Any) -> int:
        address = ctypes.cast((given := options._obj).master, ctypes.c_void_p).value  # byref(options)._obj
        seen.append((given, address, " dd " in (mapping_flags(address) or ""), ctypes.string_at(address, given.master_len)))
        return int(real(options, out))

    monkeypatch.setattr(_ffi, "kk_open_file", spy)
    with Keychain.file(path, master=master) as kc:
        kc["A"] = "v"
    assert mapping_flags(seen[0][1]) is None  # wiped and unmapped when the open returned
    with pytest.raises(WrongMasterKey):
        Keychain.file(path, master=MASTER + "-wrong")
    assert mapping_flags(seen[1][1]) is None
    assert [(excluded, passed, bool(given.master)) for given, _, excluded, passed in seen] == [
        (True, MASTER.encode(), False), (True, MASTER.encode() + b"-wrong", False)]  # out of dumps; not pointed at after


@pytest.mark.parametrize("options,source,flags", [
    ({"master": MASTER}, "secret", 0), ({"master_fd": 7}, "fd", 0), ({"credential": True}, "credential", 0),
    ({"portal": True}, "portal", 0), ({}, "automatic", 0), ({"cache_master": True}, "automatic", _ffi.FILE_CACHE_MASTER),
])
def test_each_master_source_reaches_the_library(
    path: pathlib.Path, monkeypatch: pytest.MonkeyPatch, options: Dict[str, Any], source: str, flags: int
) -> None:
    # What the library does with each source: IntegrationTests/c/test_file_store.c.
    seen: List[Any] = []
    monkeypatch.setattr(
        _ffi, "kk_open_file", lambda o, out: seen.append((o._obj.master_source, o._obj.master_fd, o._obj.flags)) or Status.ENOKEY
    )
    with pytest.raises(NoMasterKey):
        Keychain.file(path, **options)
    assert seen == [(_ffi.MASTER_SOURCES[source], options.get("master_fd", -1), flags)]


# -- the file --------------------------------------------------------------------


def test_paths_may_be_str_bytes_or_path_like(path: pathlib.Path) -> None:
    with Keychain.file(path, service="S", master=MASTER) as kc:
        assert kc.backend == "file"
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


# -- persistence -----------------------------------------------------------------


def test_persistence_is_named_and_raises_once_closed() -> None:
    with Keychain(collection="session") as kc:  # decided from the handle's options: no bus used
        assert kc.persistence == "until logout"
    kc = Keychain.in_memory()
    assert kc.persistence == "until close"
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
