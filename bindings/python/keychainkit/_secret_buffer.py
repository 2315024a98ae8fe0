# SPDX-License-Identifier: MIT
"""Memory for the copies of secrets the binding makes itself on their way
to the C library (a file's master secret, an unlock password): an
anonymous mapping of its own, excluded from core dumps (``MADV_DONTDUMP``)
and locked against swapping where ``RLIMIT_MEMLOCK`` allows (``mlock``),
as the library's own secret memory is; wiped and unmapped by
:meth:`SecretBuffer.close`. The ``str`` and ``bytes`` objects a caller
passes stay Python's: the binding cannot wipe or place them."""

from __future__ import annotations

import ctypes
import mmap
import weakref
from ctypes import Array, c_int, c_size_t, c_ubyte, c_void_p, memset
from typing import Union

_libc = ctypes.CDLL(None, use_errno=True)
for _name, _arguments in {
    "mmap": [c_void_p, c_size_t, c_int, c_int, c_int, ctypes.c_long],
    "munmap": [c_void_p, c_size_t],
    "madvise": [c_void_p, c_size_t, c_int],
    "mlock": [c_void_p, c_size_t],
}.items():
    getattr(_libc, _name).argtypes = _arguments
    getattr(_libc, _name).restype = c_void_p if _name == "mmap" else c_int

_MAP_FAILED = ctypes.c_void_p(-1).value


def _release(address: int, size: int) -> None:
    memset(address, 0, size)
    _libc.munmap(address, size)  # also unlocks it


class SecretBuffer:
    """A copy of ``data`` (``length`` bytes, at least one byte mapped so
    that the address is never NULL) in memory of its own; ``array`` is the
    ctypes view to pass to C, valid until :meth:`close` (or until the
    buffer is collected, which closes it too)."""

    def __init__(self, data: Union[bytes, memoryview]) -> None:
        source = memoryview(data).cast("B")
        self.length = source.nbytes
        self._size = max(self.length, 1)
        address = _libc.mmap(None, self._size, mmap.PROT_READ | mmap.PROT_WRITE,
                             mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS, -1, 0)
        if address is None or address == _MAP_FAILED:
            raise MemoryError("no memory for a secret")
        self._close = weakref.finalize(self, _release, address, self._size)
        _libc.madvise(address, self._size, mmap.MADV_DONTDUMP)
        _libc.mlock(address, self._size)  # best effort: the limit may not allow it
        self.array: "Array[c_ubyte]" = (c_ubyte * self._size).from_address(address)
        memoryview(self.array).cast("B")[: self.length] = source  # one copy, in C

    def close(self) -> None:
        """Wipes the copy and gives its memory back; idempotent."""
        self._close()

    def __repr__(self) -> str:
        return f"<SecretBuffer of {self.length} bytes>"
