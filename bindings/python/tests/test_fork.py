"""fork(): a Keychain opened (and used) before a fork works in the children.

Children read and write through the inherited keychain and open their own;
the parent's keychain keeps working. On the Secret Service the children's
writes are seen by the parent at once; in memory each child works on its
own copy (the keychain is process-local), so the parent never sees them.

Every wait is bounded: pool results with ``.get(timeout=...)``, os.fork()
children under ``signal.alarm`` and a bounded ``waitpid`` loop, so a child
that hangs fails the test instead of hanging the run.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import signal
import time
from typing import Any, Callable, Dict, List, Optional, Tuple

import pytest

from keychainkit import Keychain
from support import open_keychain

#: Seconds a pool's results may take.
POOL_TIMEOUT = 30

#: Seconds an os.fork() child may run before its alarm kills it.
CHILD_ALARM = 10

WORKERS = 4
TASKS = 16

# The keychain the children inherit, and its backend: set by each test
# before it forks, read by the worker functions (which must be module-level
# to be sent to a pool).
_inherited: Optional[Keychain] = None
_backend = ""


@pytest.fixture
def inherited(kc: Keychain, backend: str) -> Any:
    """``kc``, published for the children, used before any fork."""
    global _inherited, _backend
    kc["before"] = "written before the fork"
    assert kc["before"] == "written before the fork"
    _inherited, _backend = kc, backend
    try:
        yield kc
    finally:
        _inherited, _backend = None, ""


def _expected(task: int) -> str:
    return f"task {task}"


def _read_and_write(task: int) -> Tuple[int, int, str, str, Optional[str]]:
    """A pool task: reads the pre-fork value, writes and reads back a key
    of its own, then removes and re-reads a scratch key."""
    kc = _inherited
    assert kc is not None
    before = kc["before"]
    kc[f"task{task}"] = _expected(task)
    readback = kc[f"task{task}"]
    kc[f"scratch{task}"] = "scratch"
    del kc[f"scratch{task}"]
    gone = kc.get(f"scratch{task}")
    return task, os.getpid(), before, readback, gone


def _with_own_keychain(task: int) -> Tuple[int, Optional[str], str]:
    """A pool task: opens a keychain of its own in the child."""
    kc = _inherited
    assert kc is not None
    own = open_keychain(_backend, kc.service)
    try:
        seen = own.get("before")  # the inherited keychain's item, on the shared backends
        own[f"own{task}"] = _expected(task)
        return task, seen, kc[f"own{task}"] if _backend != "memory" else own[f"own{task}"]
    finally:
        own.close()


def _run_pool(function: Callable[[int], Any]) -> List[Any]:
    context = multiprocessing.get_context("fork")
    with context.Pool(WORKERS) as pool:
        # Leaving the block terminates the workers, also after a time-out.
        return pool.map_async(function, range(TASKS), chunksize=1).get(timeout=POOL_TIMEOUT)


def test_pool_workers_read_and_write_through_the_inherited_keychain(inherited: Keychain, backend: str) -> None:
    results = _run_pool(_read_and_write)
    assert sorted(task for task, *_ in results) == list(range(TASKS))
    for task, pid, before, readback, gone in results:
        assert pid != os.getpid()
        assert before == "written before the fork"
        assert readback == _expected(task)
        assert gone is None
    for task in range(TASKS):
        if backend == "memory":
            assert inherited.get(f"task{task}") is None  # the children's own copies
        else:
            assert inherited[f"task{task}"] == _expected(task)
        assert inherited.get(f"scratch{task}") is None
    # The parent's keychain still works.
    inherited["after"] = "written after the pool"
    assert inherited["after"] == "written after the pool"
    assert inherited["before"] == "written before the fork"


def test_pool_workers_open_keychains_of_their_own(inherited: Keychain, backend: str) -> None:
    results = _run_pool(_with_own_keychain)
    for task, seen, value in results:
        assert seen == (None if backend == "memory" else "written before the fork")
        assert value == _expected(task)
    if backend != "memory":
        assert [inherited[f"own{task}"] for task in range(TASKS)] == [_expected(t) for t in range(TASKS)]
    inherited["after"] = "written after the pool"
    assert inherited["after"] == "written after the pool"


def test_several_pools_one_after_another(inherited: Keychain) -> None:
    for _ in range(3):
        results = _run_pool(_read_and_write)
        assert [readback for _, _, _, readback, _ in sorted(results)] == [_expected(t) for t in range(TASKS)]
        inherited["before"] = "written before the fork"  # and used between pools


# -- os.fork() directly ------------------------------------------------------


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


def test_os_fork_child_uses_the_inherited_keychain(inherited: Keychain, backend: str) -> None:
    assert inherited.get("child-new") is None  # remembered as absent, perhaps
    inherited["doomed"] = "removed by the child"

    def child() -> Dict[str, Any]:
        kc = inherited
        seen = {"before": kc["before"]}
        kc["before"] = "updated by the child"
        seen["updated"] = kc["before"]
        kc["child-new"] = "created by the child"
        seen["created"] = kc["child-new"]
        del kc["doomed"]
        seen["doomed"] = kc.get("doomed")
        own = open_keychain(backend, kc.service)
        try:
            seen["own sees"] = own.get("child-new")
            own["own"] = "written by the child's own keychain"
            seen["inherited sees own"] = kc.get("own")
        finally:
            own.close()
        return seen

    seen = _fork(child)
    shared = backend != "memory"
    assert seen == {
        "before": "written before the fork",
        "updated": "updated by the child",
        "created": "created by the child",
        "doomed": None,
        "own sees": "created by the child" if shared else None,
        "inherited sees own": "written by the child's own keychain" if shared else None,
    }
    if shared:
        assert inherited["before"] == "updated by the child"
        assert inherited["child-new"] == "created by the child"
        assert inherited.get("doomed") is None
        assert inherited["own"] == "written by the child's own keychain"
    else:
        assert inherited["before"] == "written before the fork"
        assert inherited.get("child-new") is None
        assert inherited["doomed"] == "removed by the child"
    inherited["after"] = "written after the fork"
    assert inherited["after"] == "written after the fork"
    del inherited["after"]
    assert "after" not in inherited


def test_os_fork_children_one_after_another_and_the_parent_between(inherited: Keychain, backend: str) -> None:
    for step in range(5):
        inherited["round"] = f"parent {step}"

        def child() -> Dict[str, Any]:
            seen = {"read": inherited["round"]}
            inherited["round"] = f"child {step}"
            seen["wrote"] = inherited["round"]
            return seen

        assert _fork(child) == {"read": f"parent {step}", "wrote": f"child {step}"}
        assert inherited["round"] == (f"child {step}" if backend != "memory" else f"parent {step}")


def test_os_fork_child_closing_the_inherited_keychain_leaves_the_parents(inherited: Keychain) -> None:
    def child() -> Dict[str, Any]:
        value = inherited["before"]
        inherited.close()
        return {"value": value, "closed": inherited.closed}

    assert _fork(child) == {"value": "written before the fork", "closed": True}
    assert not inherited.closed
    assert inherited["before"] == "written before the fork"
