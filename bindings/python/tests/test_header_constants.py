# SPDX-License-Identifier: MIT
"""Every constant the binding mirrors from keychainkit.h, checked against the
header itself (the one source): statuses, policies, keyrings, events, master
sources, persistences, struct versions and limits. A constant added to the
header that the binding does not mirror fails here too."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Dict

from keychainkit import Status, _events, _ffi

HEADER = Path(__file__).resolve().parents[3] / "include" / "keychainkit.h"


def header_constants() -> Dict[str, int]:
    """The header's integer constants: enum members and plain #defines."""
    text = HEADER.read_text()
    constants = {name: int(value) for name, value in re.findall(r"^\s*(KK_[A-Z0-9_]+) = (-?\d+),?\s*$", text, re.M)}
    for name, expression in re.findall(r"^#define (KK_[A-Z0-9_]+) (.+)$", text, re.M):
        expression = expression.replace("(size_t)", "")
        if re.fullmatch(r"[\d\s()*+]+", expression):
            constants[name] = eval(expression)  # digits, spaces, parentheses, * and + only
    return constants


def mirrored() -> Dict[str, int]:
    """What the binding says each constant is, by its C name."""
    constants = {f"KK_{status.name}": int(status) for status in Status}
    constants.update({f"KK_PROMPT_{name.upper()}": value for name, value in _ffi.PROMPT_POLICIES.items()})
    constants.update({f"KK_KERNEL_{name.upper()}": value for name, value in _ffi.KERNEL_KEYRINGS.items()})
    constants.update({f"KK_EVENT_{kind.upper()}": value for value, kind in _events._KINDS.items()})
    constants.update({f"KK_MASTER_{name.upper()}": value for name, value in _ffi.MASTER_SOURCES.items()})
    constants.update({"KK_" + name.upper().replace(" ", "_"): value for value, name in _ffi.PERSISTENCES.items()})
    constants.update(
        KK_TRANSFER_PREFER_ENCRYPTED=_ffi.TRANSFER_PREFER_ENCRYPTED,
        KK_TRANSFER_REQUIRE_ENCRYPTED=_ffi.TRANSFER_REQUIRE_ENCRYPTED,
        KK_SECRET_SERVICE_OPTIONS_VERSION=_ffi.SECRET_SERVICE_OPTIONS_VERSION,
        KK_SERVER_LOGIN_VERSION=_ffi.SERVER_LOGIN_VERSION,
        KK_FILE_OPTIONS_VERSION=_ffi.FILE_OPTIONS_VERSION,
        KK_DEFAULT_TIMEOUT_MS=_ffi.DEFAULT_TIMEOUT_MS,
        KK_DEFAULT_PROMPT_TIMEOUT_MS=_ffi.DEFAULT_PROMPT_TIMEOUT_MS,
        KK_MAX_VALUE_SIZE=_ffi.MAX_VALUE_SIZE,
    )
    return constants


# The version is the library's to report at run time (see test_loading), not
# a constant the binding copies; the observers' coalescing is the library's
# timing, which the binding's docs name and nothing in it uses.
NOT_MIRRORED = {"KK_VERSION_MAJOR", "KK_VERSION_MINOR", "KK_VERSION_PATCH",
                "KK_OBSERVE_COALESCE_MS", "KK_OBSERVE_BURST_MAX_MS"}


def test_the_header_is_parsed() -> None:
    constants = header_constants()
    assert constants["KK_EUNKNOWN"] == -9 and constants["KK_MAX_VALUE_SIZE"] == 16 * 1024 * 1024
    assert len(constants) >= 28


def test_every_mirrored_constant_is_the_headers() -> None:
    header = header_constants()
    binding = mirrored()
    assert {name: header.get(name) for name in binding} == binding


def test_every_constant_of_the_header_is_mirrored() -> None:
    assert set(header_constants()) - NOT_MIRRORED == set(mirrored())
