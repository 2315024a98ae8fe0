# SPDX-License-Identifier: MIT
"""Accounts and services: validation, per-call services, the default service.
Keys as the library keeps them: IntegrationTests/c/test_items.c."""

from __future__ import annotations

import subprocess
import sys
import types
from pathlib import Path
from typing import List, Optional

import pytest

from support import open_keychain
from keychainkit import ChangeEvent, InvalidArgument, Keychain
from keychainkit._default_service import default_service

BAD_NAMES = [
    ("with\x00nul", "NUL"),
    ("lone \udc80 surrogate", "surrogate"),
    (b"\xff".decode("utf-8", "surrogateescape"), "surrogate"),
]


@pytest.mark.parametrize("name,reason", BAD_NAMES, ids=repr)
def test_a_bad_account_is_rejected_before_calling_c(kc: Keychain, name: str, reason: str) -> None:
    for call in (lambda: kc[name], lambda: kc.value(name), lambda: kc.update_value("x", name),
                 lambda: kc.remove_value(name), lambda: kc.observe(name, print)):
        with pytest.raises(InvalidArgument, match=reason):
            call()


@pytest.mark.parametrize("name,reason", BAD_NAMES, ids=repr)
def test_a_bad_service_is_rejected(kc: Keychain, backend: str, name: str, reason: str) -> None:
    with pytest.raises(InvalidArgument, match=reason):
        kc.value("account", service=name)
    with pytest.raises(InvalidArgument, match=reason):
        open_keychain(backend, service=name)


@pytest.mark.parametrize("bad_service", [0, b"svc"], ids=repr)
def test_a_non_str_service_is_rejected(kc: Keychain, bad_service: object) -> None:
    with pytest.raises(InvalidArgument, match="must be a str"):
        kc.value("account", service=bad_service)  # type: ignore[arg-type]
    with pytest.raises(InvalidArgument, match="must be a str"):
        Keychain.in_memory(service=bad_service)  # type: ignore[arg-type]


def test_the_keychain_service_is_the_default_of_every_call(kc: Keychain, backend: str, service: str) -> None:
    assert kc.service == service
    kc["token"] = "x"
    assert kc.value("token", service=service) == "x"
    if backend == "secret_service":  # a second handle sees the same store
        with open_keychain(backend, service) as again:
            assert again["token"] == "x"


def test_no_service_means_the_program_name(backend: str, service: str) -> None:
    account = f"default-service-{service}"  # the default service is shared
    with open_keychain(backend) as kc:
        assert kc.service == default_service() == "pytest"  # run by the pytest script
        events: List[ChangeEvent] = []
        with kc.observe(account, events.append):
            kc[account] = "x"
        try:
            assert events[0].service == "pytest"
            assert kc.value(account, service="pytest") == "x"
        finally:
            kc.remove_value(account)


# Where a new Python process stores when it names no service.
PROBE = """
from keychainkit import Keychain
events = []
with Keychain.in_memory() as kc:
    kc.observe("a", events.append)
    kc["a"] = "x"
    print(kc.service, events[0].service)
"""


def service_of(arguments: List[str], cwd: Path, stdin: Optional[str] = None) -> str:
    result = subprocess.run(
        [sys.executable, *arguments], input=stdin, cwd=cwd, capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    named, stored = result.stdout.split()
    assert named == stored
    return stored


def test_a_script_stores_under_its_name(tmp_path: Path) -> None:
    (tmp_path / "backup-tool.py").write_text(PROBE)
    assert service_of([str(tmp_path / "backup-tool.py")], tmp_path) == "backup-tool"


def test_a_module_run_with_dash_m_stores_under_the_module_name(tmp_path: Path) -> None:
    (tmp_path / "mytool").mkdir()
    (tmp_path / "mytool" / "__init__.py").write_text("")
    (tmp_path / "mytool" / "sync.py").write_text(PROBE)
    (tmp_path / "mytool" / "__main__.py").write_text(PROBE)
    assert service_of(["-m", "mytool.sync"], tmp_path) == "mytool.sync"
    assert service_of(["-m", "mytool"], tmp_path) == "mytool"


@pytest.mark.parametrize("arguments", [["-c", PROBE], ["-"], []], ids=["-c", "stdin -", "stdin"])
def test_code_without_a_file_stores_under_python(arguments: List[str], tmp_path: Path) -> None:
    stdin = None if arguments and arguments[0] == "-c" else PROBE
    assert service_of(arguments, tmp_path, stdin) == "python"


@pytest.mark.parametrize(
    "argv,expected",
    [
        (["/usr/bin/tool"], "tool"),
        (["tool.pyw"], "tool"),
        ([".py"], ".py"),
        (["/srv/app/"], "python"),
        ([], "python"),
    ],
)
def test_the_name_read_from_argv(argv: List[str], expected: str) -> None:
    assert default_service(argv, types.ModuleType("__main__")) == expected

