# SPDX-License-Identifier: MIT
"""Finding and loading libkeychainkit, and checking that its version fits.

Candidates, in order (the first that loads, exports every function this
binding declares and has a compatible version wins):

1. ``$KEYCHAINKIT_LIBRARY`` when set: then it is the *only* candidate, so a
   wrong path is an error rather than a silent fallback to another library;
2. a library shipped inside this package (``keychainkit/libkeychainkit.so*``,
   which the wheel ``make wheel`` builds carries);
3. the versioned soname ``libkeychainkit.so.0`` through the dynamic loader
   (``LD_LIBRARY_PATH``, ``/etc/ld.so.cache``, default directories);
4. whatever ``ctypes.util.find_library("keychainkit")`` names.

When none fits, one :class:`ImportError` lists every candidate and why it
failed.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
from pathlib import Path
from typing import Iterable, Iterator, List, Mapping, NamedTuple, Optional

from ._version import package_version

ENV_VAR = "KEYCHAINKIT_LIBRARY"
SONAME = "libkeychainkit.so.0"
# This binding declares every function of the header it was built from, so
# it needs a library of that version's major and at least its minor.
REQUIRED_MAJOR, REQUIRED_MINOR = (int(part) for part in package_version().split(".")[:2])
PACKAGE_DIR = Path(__file__).resolve().parent


class Candidate(NamedTuple):
    """A place to load the library from: where it came from, and the name
    to hand to the loader (``None`` when that place offered nothing)."""

    source: str
    name: Optional[str]


def candidates(
    environ: Mapping[str, str] = os.environ, package_dir: Path = PACKAGE_DIR
) -> Iterator[Candidate]:
    """The candidates to try, in order (see the module's docstring); lazily,
    since ``find_library`` runs a subprocess."""
    explicit = environ.get(ENV_VAR)
    if explicit:
        yield Candidate(f"${ENV_VAR}", explicit)
        return
    bundled = sorted(package_dir.glob("libkeychainkit.so*"), key=lambda p: (p.name != SONAME, p.name))
    for path in bundled:
        yield Candidate("bundled in the package", str(path))
    if not bundled:
        yield Candidate(f"bundled in the package ({package_dir}/libkeychainkit.so*)", None)
    yield Candidate("the dynamic loader", SONAME)
    yield Candidate('ctypes.util.find_library("keychainkit")', ctypes.util.find_library("keychainkit"))


def version_problem(number: int) -> Optional[str]:
    """Why a library reporting ``kk_version_number() == number`` does not
    fit this binding, or ``None`` when it does (same major, minor at least
    the one required)."""
    major, minor, patch = number // 10000, number // 100 % 100, number % 100
    if major == REQUIRED_MAJOR and minor >= REQUIRED_MINOR:
        return None
    return (
        f"its version is {major}.{minor}.{patch}, this binding needs "
        f"{REQUIRED_MAJOR}.x with x >= {REQUIRED_MINOR}"
    )


def _problem(library: ctypes.CDLL, symbols: Iterable[str]) -> Optional[str]:
    missing = [name for name in symbols if not hasattr(library, name)]
    if missing:
        return "it does not export " + ", ".join(missing) + " (not KeychainKit, or too old)"
    version = library.kk_version_number
    version.restype = ctypes.c_int
    version.argtypes = []
    return version_problem(version())


def load(symbols: Iterable[str], found: Optional[Iterable[Candidate]] = None) -> ctypes.CDLL:
    """Loads the first fitting candidate that exports every name in ``symbols``.

    Raises :class:`ImportError` naming every candidate tried and its failure.
    """
    required = list(symbols)
    failures: List[str] = []
    for candidate in candidates() if found is None else found:
        if candidate.name is None:
            failures.append(f"{candidate.source}: nothing found")
            continue
        try:
            library = ctypes.CDLL(candidate.name)
        except OSError as error:
            failures.append(f"{candidate.source}: {candidate.name!r}: {error}")
            continue
        problem = _problem(library, required)
        if problem is None:
            return library
        failures.append(f"{candidate.source}: {candidate.name!r}: {problem}")
    raise ImportError(
        "keychainkit: cannot load libkeychainkit, the KeychainKit C library. Tried:\n  - "
        + "\n  - ".join(failures)
        + "\nInstall the wheel of `make wheel`, which carries it; or install it (make install, then ldconfig)"
        + f" or set {ENV_VAR} to its path."
    )
