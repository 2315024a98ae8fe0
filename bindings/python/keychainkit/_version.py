# SPDX-License-Identifier: MIT
"""The package's version. Its one source is ``KK_VERSION_*`` in
``include/keychainkit.h``, as for the C library: ``setup.py`` reads it from
there into the built package's metadata, which an installed copy reads
back; a source checkout on ``sys.path`` reads the header itself.

No relative imports: ``setup.py`` runs this file on its own.
"""

from __future__ import annotations

import re
from pathlib import Path

SOURCE_HEADER = Path(__file__).resolve().parents[3] / "include" / "keychainkit.h"
"""Where the header is when this file is in a source checkout (or in the
tree ``make wheel`` stages, which has the same layout)."""


def header_version(header: Path = SOURCE_HEADER) -> str:
    """``"MAJOR.MINOR.PATCH"`` from the ``KK_VERSION_*`` macros of ``header``."""
    text = header.read_text(encoding="utf-8")
    parts = []
    for part in ("MAJOR", "MINOR", "PATCH"):
        found = re.search(rf"^#define KK_VERSION_{part} (\d+)$", text, re.MULTILINE)
        if found is None:
            raise ValueError(f"{header}: no #define KK_VERSION_{part}")
        parts.append(found.group(1))
    return ".".join(parts)


def package_version() -> str:
    """This copy's version: the header's in a source checkout (a
    ``pyproject.toml`` beside the package and the header two levels up),
    else the installed distribution's."""
    if SOURCE_HEADER.is_file() and (Path(__file__).resolve().parents[1] / "pyproject.toml").is_file():
        return header_version()
    from importlib.metadata import version

    return version("keychainkit")
