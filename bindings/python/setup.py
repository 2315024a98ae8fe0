# SPDX-License-Identifier: MIT
"""Build hooks of the keychainkit distribution (the rest is pyproject.toml).

- The version is read from ``include/keychainkit.h`` (``KK_VERSION_*``), the
  one source of truth it shares with the C library, the Makefile and
  Package.swift: see ``keychainkit/_version.py``. An unpacked sdist (``make
  sdist``) has no header: there it is the ``Version`` its ``PKG-INFO``
  recorded from the header.
- The licence is MIT: ``License-Expression: MIT`` with setuptools >= 77
  (PEP 639; ``make wheel`` and ``pip install`` build with such a setuptools),
  ``License: MIT`` with older ones, which reject a licence expression in
  pyproject.toml (Debian 12's python3-setuptools 66 builds the Debian
  package). Either way the wheel carries LICENSE (setuptools' default
  license-files patterns).
- A ``libkeychainkit.so*`` placed in ``keychainkit/`` before building (``make
  wheel`` does it, in a staged copy of this tree) makes the wheel a platform
  wheel, ``py3-none-<platform>``: any Python 3 (ctypes, no extension module),
  this machine's architecture (``make wheel`` then makes it a manylinux wheel
  with ``auditwheel repair``). Without one, the wheel is pure Python and
  loads an installed library.
"""

from __future__ import annotations

import runpy
from pathlib import Path

import setuptools
from setuptools import Distribution, setup

try:
    from setuptools.command.bdist_wheel import bdist_wheel
except ImportError:  # setuptools < 70.1 (Debian 12 has 66): the wheel package's
    from wheel.bdist_wheel import bdist_wheel

HERE = Path(__file__).resolve().parent
LICENSE = (
    {"license_expression": "MIT"}
    if int(setuptools.__version__.split(".")[0]) >= 77
    else {"license": "MIT"}
)
BUNDLED = any((HERE / "keychainkit").glob("libkeychainkit.so*"))


def version() -> str:
    """The header's version; in an unpacked sdist (a PKG-INFO beside this
    file, which a source tree never has) the one PKG-INFO recorded."""
    pkg_info = HERE / "PKG-INFO"
    if not pkg_info.is_file():
        return runpy.run_path(str(HERE / "keychainkit" / "_version.py"))["header_version"]()
    for line in pkg_info.read_text(encoding="utf-8").splitlines():
        if line.startswith("Version: "):
            return line[len("Version: "):].strip()
    raise ValueError(f"{pkg_info}: no Version")


class LibraryDistribution(Distribution):
    """A distribution that is platform-specific when the library is bundled
    (the package then installs into ``platlib``, the wheel's root)."""

    def has_ext_modules(self) -> bool:
        return BUNDLED


class PlatformWheel(bdist_wheel):
    """``bdist_wheel`` tagged ``py3-none-<platform>`` when the library is
    bundled, instead of the CPython-specific tag an extension module gets."""

    def get_tag(self) -> "tuple[str, str, str]":
        python, abi, platform = super().get_tag()
        return ("py3", "none", platform) if BUNDLED else (python, abi, platform)


setup(
    **LICENSE,
    version=version(),
    distclass=LibraryDistribution,
    cmdclass={"bdist_wheel": PlatformWheel},
)
