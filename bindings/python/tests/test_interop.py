"""Items are shared with secret-tool (attributes service S, username U)."""

from __future__ import annotations

import subprocess
from typing import List

from keychainkit import Keychain


def secret_tool(*arguments: str, secret: str = "") -> str:
    result = subprocess.run(["secret-tool", *arguments], input=secret, capture_output=True, text=True, timeout=30)
    assert result.returncode == 0, result.stderr
    return result.stdout


def items(service: str, account: str) -> List[str]:
    found = subprocess.run(
        ["secret-tool", "search", "--all", "service", service, "username", account],
        capture_output=True, text=True, timeout=30,
    )
    return [line for line in (found.stdout + found.stderr).splitlines() if line.startswith("[/")]


def test_a_secret_tool_item_is_read(secret_service: None, service: str) -> None:
    secret_tool("store", "--label=from secret-tool", "service", service, "username", "alice", secret="päss\tword")
    with Keychain(service=service) as kc:
        assert kc["alice"] == "päss\tword"


def test_our_item_is_read_by_secret_tool(secret_service: None, service: str) -> None:
    with Keychain(service=service) as kc:
        kc["bob"] = "s3cret ✓"
    assert secret_tool("lookup", "service", service, "username", "bob") == "s3cret ✓"


def test_writing_over_a_secret_tool_item_updates_it_in_place(secret_service: None, service: str) -> None:
    secret_tool("store", "--label=from secret-tool", "service", service, "username", "carol", secret="old")
    with Keychain(service=service) as kc:
        kc["carol"] = "new"
    assert secret_tool("lookup", "service", service, "username", "carol") == "new"
    assert len(items(service, "carol")) == 1


def test_removal_is_seen_by_secret_tool(secret_service: None, service: str) -> None:
    secret_tool("store", "--label=x", "service", service, "username", "dave", secret="x")
    with Keychain(service=service) as kc:
        del kc["dave"]
    assert items(service, "dave") == []
