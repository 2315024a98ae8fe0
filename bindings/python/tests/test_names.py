"""Accounts and services: validation, per-call services, the default service."""

from __future__ import annotations

import os
import subprocess
import sys
from typing import List

import pytest

from support import open_keychain, unique_service
from keychainkit import ChangeEvent, InvalidArgument, Keychain

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


def test_an_empty_service_is_rejected_by_the_library(kc: Keychain) -> None:
    with pytest.raises(InvalidArgument, match="service is empty"):
        kc.update_value("x", "account", service="")
    with pytest.raises(InvalidArgument, match="service is empty"):
        kc.value("", service="")


def test_the_empty_account_is_an_ordinary_key(kc: Keychain) -> None:
    assert "" not in kc
    kc[""] = "nobody's"
    kc["a"] = "a's"
    assert kc[""] == "nobody's"
    assert kc.accounts() == ["", "a"]
    del kc[""]
    assert "" not in kc
    assert kc["a"] == "a's"


def test_non_ascii_names_work(kc: Keychain) -> None:
    kc.update_value("v", "ünïcödé 鍵", service="sërvïce 🔑")
    assert kc.value("ünïcödé 鍵", service="sërvïce 🔑") == "v"


def test_a_per_call_service_is_a_different_key(kc: Keychain, service: str) -> None:
    other = unique_service()
    kc["token"] = "mine"
    kc.update_value("other", "token", service=other)
    assert kc["token"] == "mine"
    assert kc.value("token", service=service) == "mine"
    assert kc.value("token", service=other) == "other"
    kc.remove_value("token", service=other)
    assert kc["token"] == "mine"


def test_the_keychain_service_is_the_default_of_every_call(kc: Keychain, backend: str, service: str) -> None:
    assert kc.service == service
    kc["token"] = "x"
    assert kc.value("token", service=service) == "x"
    if backend == "secret_service":  # a second handle sees the same store
        with open_keychain(backend, service) as again:
            assert again["token"] == "x"


def test_no_service_means_one_default_service(backend: str, service: str) -> None:
    account = f"default-service-{service}"  # the default service is shared
    with open_keychain(backend) as kc:
        assert kc.service is None
        events: List[ChangeEvent] = []
        with kc.observe(account, events.append):
            kc[account] = "x"
        try:
            default = events[0].service
            assert default
            assert kc.value(account, service=default) == "x"
        finally:
            kc.remove_value(account)


DEFAULT_SERVICE_PROBE = """
import os, sys
if sys.argv[1] == "setenv":
    os.environ["KEYCHAINKIT_PROBE"] = "1"  # glibc moves environ off the stack
from keychainkit import Keychain
events = []
with Keychain.in_memory() as kc:
    kc.observe("a", events.append)
    kc["a"] = "x"
print(events[0].service)
"""


def default_service_of_a_new_process(mode: str) -> str:
    result = subprocess.run(
        [sys.executable, "-c", DEFAULT_SERVICE_PROBE, mode], capture_output=True, text=True, timeout=60, check=True
    )
    return result.stdout.strip()


def test_the_default_service_is_the_program_name() -> None:
    assert default_service_of_a_new_process("plain") == os.path.basename(sys.executable)


def test_the_default_service_is_the_program_name_after_an_environment_change() -> None:
    assert default_service_of_a_new_process("setenv") == os.path.basename(sys.executable)
