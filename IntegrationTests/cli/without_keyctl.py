# SPDX-License-Identifier: MIT
"""Runs a command under a seccomp filter that makes add_key, keyctl and
request_key fail with EPERM, as Docker's default profile does.

    python3 IntegrationTests/cli/without_keyctl.py COMMAND [ARG...]
"""

import ctypes
import errno
import os
import platform
import struct
import sys

# The three system calls, by machine (asm/unistd.h).
NUMBERS = {"x86_64": (248, 249, 250), "aarch64": (217, 218, 219)}

BPF_LD_W_ABS, BPF_JEQ_K, BPF_RET_K = 0x20, 0x15, 0x06
SECCOMP_RET_ALLOW, SECCOMP_RET_ERRNO = 0x7FFF0000, 0x00050000
PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 38, 22, 2


def instruction(code: int, jt: int, jf: int, k: int) -> bytes:
    return struct.pack("HBBI", code, jt, jf, k)


def main() -> None:
    add_key, request_key, keyctl = NUMBERS[platform.machine()]
    program = b"".join([
        instruction(BPF_LD_W_ABS, 0, 0, 0),  # seccomp_data.nr
        instruction(BPF_JEQ_K, 3, 0, add_key),
        instruction(BPF_JEQ_K, 2, 0, request_key),
        instruction(BPF_JEQ_K, 1, 0, keyctl),
        instruction(BPF_RET_K, 0, 0, SECCOMP_RET_ALLOW),
        instruction(BPF_RET_K, 0, 0, SECCOMP_RET_ERRNO | errno.EPERM),
    ])
    filters = ctypes.create_string_buffer(program, len(program))
    fprog = struct.pack("HxxxxxxP", len(program) // 8, ctypes.addressof(filters))
    fprog_buffer = ctypes.create_string_buffer(fprog, len(fprog))
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl.argtypes = [ctypes.c_int] + [ctypes.c_ulong] * 4  # a pointer must not be cut to an int
    if libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 or \
            libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.addressof(fprog_buffer), 0, 0) != 0:
        sys.exit(f"without_keyctl.py: cannot install the filter: {os.strerror(ctypes.get_errno())}")
    os.execvp(sys.argv[1], sys.argv[1:])


main()
