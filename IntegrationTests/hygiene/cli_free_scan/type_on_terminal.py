# SPDX-License-Identifier: MIT
"""Runs a command on a new pseudo-terminal and types a secret line into it.

    python3 type_on_terminal.py SECRET_FILE COMMAND [ARG...]

The command's standard input, output and error are the terminal. Once it
has turned echo off (a prompt that reads without echo), the bytes of
SECRET_FILE and a newline are typed; nothing is typed before, since
tcsetattr(TCSAFLUSH) would discard it. What the command wrote to the
terminal goes to standard output; the exit status is the command's (124
when it did not turn echo off within 10 s or did not finish within 30 s).
A canonical-mode line holds at most 4095 bytes: keep the secret shorter.
"""

import os
import pty
import select
import subprocess
import sys
import termios
import time


def drain(master, transcript, wait):
    """Reads what the command wrote, for at most `wait` seconds."""
    ready, _, _ = select.select([master], [], [], wait)
    if ready:
        try:
            data = os.read(master, 65536)
        except OSError:  # EIO: the terminal's last user is gone
            return False
        transcript.extend(data)
        return bool(data)
    return False


def main():
    with open(sys.argv[1], "rb") as f:
        secret = f.read()
    master, slave = pty.openpty()
    child = subprocess.Popen(sys.argv[2:], stdin=slave, stdout=slave, stderr=slave,
                             start_new_session=True)
    transcript = bytearray()
    deadline = time.monotonic() + 10
    while termios.tcgetattr(slave)[3] & termios.ECHO:
        if child.poll() is not None or time.monotonic() > deadline:
            child.kill()
            child.wait()
            sys.stdout.buffer.write(bytes(transcript))
            return 124
        drain(master, transcript, 0.01)
    os.write(master, secret + b"\n")
    deadline = time.monotonic() + 30
    while child.poll() is None:
        if time.monotonic() > deadline:
            child.kill()
            child.wait()
            return 124
        drain(master, transcript, 0.05)
    while drain(master, transcript, 0.05):
        pass
    os.close(slave)
    os.close(master)
    sys.stdout.buffer.write(bytes(transcript))
    return child.returncode


sys.exit(main())
