# SPDX-License-Identifier: MIT
"""fork(): a Keychain opened, used and observed before os.fork() works in
the child, and the parent's keeps working.

What the library guarantees across fork() (inherited handles in children
and grandchildren, several children at once, a fork while another thread
is inside a call, observers, the parent's connection left alone) is
asserted by the C ABI suite: IntegrationTests/c/test_fork.c and, for
changes made elsewhere, test_outside_changes.c. Here, once, the binding's
side: the Keychain object and its handle (reset in the child by
os.register_at_fork), a Python callback registered in the parent called in
the child, a Python callback on a delivery thread the child starts, and
close() in the child.

Every wait is bounded: the child runs under ``signal.alarm`` and the
parent's ``waitpid`` loop gives up, so a child that hangs fails the test
instead of hanging the run.
"""

from __future__ import annotations

import json
import os
import signal
import threading
import time
from typing import Any, Callable, Dict, List

import pytest

from keychainkit import ChangeEvent, Keychain
from support import HEARS_OTHERS, open_keychain

#: Seconds an os.fork() child may run before its alarm kills it.
CHILD_ALARM = 10

#: Seconds a change made elsewhere may take to arrive.
WAIT = 3.0


def _fork(child: Callable[[], Dict[str, Any]]) -> Dict[str, Any]:
    """Runs ``child`` in a fork()ed child under an alarm and returns what it
    returned (sent back as JSON through a pipe). Fails the test when the
    child raised, crashed or hung."""
    readable, writable = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: never returns into pytest
        status = 1
        try:
            os.close(readable)
            signal.alarm(CHILD_ALARM)
            report: Dict[str, Any] = {"result": child()}
            status = 0
        except BaseException as error:  # noqa: BLE001 - reported to the parent
            report = {"error": repr(error)}
        finally:
            try:
                os.write(writable, json.dumps(report).encode())
            finally:
                os._exit(status)
    os.close(writable)
    deadline = time.monotonic() + CHILD_ALARM + 10
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done == pid:
            break
        if time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            os.close(readable)
            pytest.fail(f"the child {pid} still ran after {CHILD_ALARM + 10} s: killed")
        time.sleep(0.005)
    with os.fdopen(readable, "rb") as pipe:
        sent = pipe.read()
    if os.WIFSIGNALED(status):
        number = os.WTERMSIG(status)
        hung = ": it hung until its alarm" if number == signal.SIGALRM else ""
        pytest.fail(f"the child was killed by signal {signal.Signals(number).name}{hung}")
    report = json.loads(sent.decode()) if sent else {"error": "the child sent nothing"}
    assert "error" not in report, f"the child failed: {report['error']}"
    assert os.WEXITSTATUS(status) == 0
    return dict(report["result"])


@pytest.mark.parametrize("backend", HEARS_OTHERS, indirect=True)
@pytest.mark.filterwarnings("ignore:.*multi-threaded.*fork:DeprecationWarning")  # the delivery thread
def test_an_inherited_keychain_works_in_an_os_fork_child(kc: Keychain, backend: str) -> None:
    kc["before"] = "written before the fork"
    heard: List[ChangeEvent] = []
    kc.observe("observed", heard.append)  # registered in the parent
    kc.observe("elsewhere", lambda event: None)  # the parent's delivery thread runs at the fork

    def child() -> Dict[str, Any]:
        seen: Dict[str, Any] = {"read": kc["before"]}
        kc["observed"] = "written by the child"  # the parent's callback, called in the child
        seen["wrote"] = kc["observed"]
        del kc["observed"]
        seen["removed"] = kc.get("observed")
        seen["kinds"] = [event.kind for event in heard]
        arrived, threads = threading.Event(), []
        kc.observe("theirs", lambda event: (threads.append(threading.get_ident()), arrived.set()))
        own = Keychain.in_memory(service=kc.service, sharing=kc) if backend == "memory" else open_keychain(backend, kc.service)
        try:
            own["theirs"] = "from the child's own keychain"  # heard on the child's delivery thread
            seen["heard elsewhere"] = arrived.wait(WAIT) and threading.get_ident() not in threads
            del own["theirs"]
        finally:
            own.close()
        kc.close()  # ends the child's delivery thread, never waits for the parent's
        seen["closed"] = kc.closed
        return seen

    assert _fork(child) == {
        "read": "written before the fork",
        "wrote": "written by the child",
        "removed": None,
        "kinds": ["set", "remove"],
        "heard elsewhere": True,
        "closed": True,
    }
    assert not kc.closed
    assert [event.kind for event in heard if event.kind in ("set", "remove")] == []  # the child's were its own
    kc["after"] = "written after the fork"
    assert kc["after"] == "written after the fork"
    assert kc["before"] == "written before the fork"
