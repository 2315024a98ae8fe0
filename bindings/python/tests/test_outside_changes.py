"""Observers hear changes made elsewhere as "changed" and "deleted".

Elsewhere is another keychain (in memory: one opened with
``Keychain.in_memory(sharing=kc)``; on the Secret Service: another
``Keychain``), another process, or another tool (secret-tool, Python
keyring, our CLI). Those events arrive on the keychain's delivery thread,
so every positive is awaited with a bounded wait (:data:`WAIT`), never a
sleep; "nothing more" is checked after :data:`SETTLE` seconds, well past
the library's 25 ms coalescing.
"""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Dict, Iterator, List, Tuple

import pytest

from keychainkit import ChangeEvent, InvalidArgument, Keychain, KeychainClosed, Status
from support import HEARS_OTHERS, KEEPASSXC_SECRET_TOOL_REPLACE, not_on_server, open_keychain
from test_fork import _fork
from test_interop import secret_tool

#: Seconds an expected event may take to arrive.
WAIT = 3.0

#: Seconds without further events after which none is expected any more.
SETTLE = 0.4

#: Python 3.12+ warns when forking a process with threads (the delivery
#: thread is one); the children here are checked to work regardless.
FORK_WITH_THREADS = pytest.mark.filterwarnings("ignore:.*multi-threaded.*fork:DeprecationWarning")

CLI = Path(__file__).resolve().parents[3] / "build" / "bin" / "keychainkit"


class Recorder:
    """An observer callback that records its events and the threads they
    arrived on, and can wait for them."""

    def __init__(self) -> None:
        self.events: List[ChangeEvent] = []
        self.threads: List[int] = []
        self._arrived = threading.Condition()

    def __call__(self, event: ChangeEvent) -> None:
        with self._arrived:
            self.events.append(event)
            self.threads.append(threading.get_ident())
            self._arrived.notify_all()

    def wait_for(self, count: int) -> List[ChangeEvent]:
        """The events once there are at least ``count``; fails after :data:`WAIT`."""
        with self._arrived:
            if not self._arrived.wait_for(lambda: len(self.events) >= count, timeout=WAIT):
                pytest.fail(f"{count} event(s) expected within {WAIT} s, got {self.events}")
            return list(self.events)

    def settled(self) -> List[ChangeEvent]:
        """The events after :data:`SETTLE` seconds more."""
        time.sleep(SETTLE)
        with self._arrived:
            return list(self.events)

    def kinds(self) -> List[Tuple[str, str]]:
        return [(event.kind, event.account) for event in self.settled()]


@pytest.fixture
def other(kc: Keychain, backend: str) -> Iterator[Keychain]:
    """Another keychain on ``kc``'s items, with the same service."""
    keychain = Keychain.in_memory(service=kc.service, sharing=kc) if backend == "memory" else open_keychain(backend, kc.service)
    try:
        yield keychain
    finally:
        keychain.close()


# -- both backends -----------------------------------------------------------


@pytest.mark.parametrize("backend", HEARS_OTHERS, indirect=True)
def test_another_keychains_writes_are_heard_as_changed_and_deleted(kc: Keychain, other: Keychain, service: str) -> None:
    recorder = Recorder()
    kc.observe("a", recorder)
    other["a"] = "created"
    assert recorder.wait_for(1) == [ChangeEvent("changed", service, "a", Status.OK)]
    other["a"] = "updated in place"
    recorder.wait_for(2)
    other.remove_value("a")
    events = recorder.wait_for(3)
    assert [event.kind for event in events] == ["changed", "changed", "deleted"]
    assert all(event.ok and event.error is None and event.status == Status.OK for event in events)
    assert recorder.settled() == events
    assert threading.get_ident() not in recorder.threads  # the delivery thread


@pytest.mark.parametrize("backend", HEARS_OTHERS, indirect=True)
def test_a_callback_on_the_delivery_thread_reads_the_new_value(kc: Keychain, other: Keychain) -> None:
    read: List[Any] = []
    done = threading.Event()

    def on_change(event: ChangeEvent) -> None:
        read.append((event.kind, kc.get(event.account)))
        done.set()

    kc.observe("a", on_change)
    other["a"] = "theirs"
    assert done.wait(WAIT)
    done.clear()
    del other["a"]
    assert done.wait(WAIT)
    assert read == [("changed", "theirs"), ("deleted", None)]


def test_own_writes_are_only_set_and_remove_on_the_writing_thread(kc: Keychain) -> None:
    recorder = Recorder()
    kc.observe("a", recorder)
    kc["a"] = "x"
    kc["a"] = "y"
    kc.remove_value("a")
    assert recorder.kinds() == [("set", "a"), ("set", "a"), ("remove", "a")]
    assert recorder.threads == [threading.get_ident()] * 3


@pytest.mark.parametrize("backend", HEARS_OTHERS, indirect=True)
def test_each_keychain_hears_its_own_writes_as_attempts_and_the_others_as_changes(kc: Keychain, other: Keychain) -> None:
    ours, theirs = Recorder(), Recorder()
    kc.observe("a", ours)
    other.observe("a", theirs)
    kc["a"] = "from kc"
    theirs.wait_for(1)
    other.remove_value("a")  # at once: a deletion is never taken for the echo of kc's write
    ours.wait_for(2)
    assert ours.kinds() == [("set", "a"), ("deleted", "a")]
    assert theirs.kinds() == [("changed", "a"), ("remove", "a")]


@pytest.mark.parametrize("backend", HEARS_OTHERS, indirect=True)
def test_an_observer_of_another_key_hears_nothing(kc: Keychain, other: Keychain, service: str) -> None:
    observed, elsewhere = Recorder(), Recorder()
    kc.observe("a", observed)
    kc.observe("b", elsewhere)
    kc.observe("a", elsewhere, service=f"{service}-other")
    other["a"] = "x"
    observed.wait_for(1)  # else both may be coalesced into one "deleted"
    other.remove_value("a")
    observed.wait_for(2)
    assert elsewhere.settled() == []


@pytest.mark.parametrize("backend", HEARS_OTHERS, indirect=True)
def test_after_cancel_nothing_is_heard(kc: Keychain, other: Keychain) -> None:
    cancelled, sentinel = Recorder(), Recorder()
    observation = kc.observe("a", cancelled)
    kc.observe("a", sentinel)
    observation.cancel()
    other["a"] = "x"
    sentinel.wait_for(1)
    assert cancelled.settled() == []


@pytest.mark.parametrize("backend", HEARS_OTHERS, indirect=True)
def test_after_the_last_observer_is_cancelled_nothing_is_heard(kc: Keychain, other: Keychain) -> None:
    recorder = Recorder()
    with kc.observe("a", recorder):
        other["a"] = "heard"
        recorder.wait_for(1)
    other["a"] = "not heard"
    other.remove_value("a")
    assert recorder.kinds() == [("changed", "a")]
    with kc.observe("a", recorder):  # a new first observer: a new delivery thread
        other["a"] = "heard again"
        recorder.wait_for(2)
    assert recorder.kinds() == [("changed", "a"), ("changed", "a")]


@pytest.mark.parametrize("backend", HEARS_OTHERS, indirect=True)
def test_closing_waits_for_a_slow_callback_on_the_delivery_thread(kc: Keychain, other: Keychain) -> None:
    entered, finished = threading.Event(), threading.Event()

    def slow(event: ChangeEvent) -> None:
        entered.set()
        time.sleep(0.3)
        finished.set()

    observation = kc.observe("a", slow)
    other["a"] = "x"
    assert entered.wait(WAIT)
    kc.close()
    assert finished.is_set(), "close() returned while the callback still ran"
    assert kc.closed and not observation.active
    observation.cancel()  # a no-op now
    other["a"] = "after close"
    assert other["a"] == "after close"


@pytest.mark.parametrize("backend", HEARS_OTHERS, indirect=True)
def test_a_callback_using_the_keychain_being_closed_gets_keychain_closed(kc: Keychain, other: Keychain) -> None:
    entered, finished = threading.Event(), threading.Event()
    outcome: List[Any] = []

    def slow(event: ChangeEvent) -> None:
        entered.set()
        time.sleep(0.2)
        try:
            outcome.append(kc.get("a"))
        except KeychainClosed as error:
            outcome.append(error)
        finished.set()

    kc.observe("a", slow)
    other["a"] = "x"
    assert entered.wait(WAIT)
    kc.close()
    assert finished.is_set()
    assert len(outcome) == 1 and isinstance(outcome[0], KeychainClosed)


@pytest.mark.parametrize("backend", HEARS_OTHERS, indirect=True)
def test_a_callback_on_the_delivery_thread_may_close_the_keychain(kc: Keychain, other: Keychain) -> None:
    closed = threading.Event()

    def close(event: ChangeEvent) -> None:
        kc.close()
        closed.set()

    kc.observe("a", close)
    other["a"] = "x"
    assert closed.wait(WAIT)
    assert kc.closed
    with pytest.raises(KeychainClosed):
        kc.get("a")
    other["a"] = "the other keychain still works"
    assert other["a"] == "the other keychain still works"


@pytest.mark.parametrize("backend", HEARS_OTHERS, indirect=True)
def test_a_callback_may_cancel_itself_on_the_delivery_thread(kc: Keychain, other: Keychain) -> None:
    recorder = Recorder()

    def once(event: ChangeEvent) -> None:
        observation.cancel()
        recorder(event)

    observation = kc.observe("a", once)
    other["a"] = "x"
    recorder.wait_for(1)
    other["a"] = "y"
    assert len(recorder.settled()) == 1
    assert not observation.active


@pytest.mark.parametrize("backend", HEARS_OTHERS, indirect=True)
def test_a_raising_callback_on_the_delivery_thread_is_reported(kc: Keychain, other: Keychain, monkeypatch: pytest.MonkeyPatch) -> None:
    reported: List[Any] = []
    monkeypatch.setattr(sys, "unraisablehook", lambda args: reported.append(args.exc_type))
    after = Recorder()

    def fail(event: ChangeEvent) -> None:
        raise RuntimeError("from the callback")

    kc.observe("a", fail)
    kc.observe("a", after)
    other["a"] = "x"
    after.wait_for(1)
    other["a"] = "y"
    after.wait_for(2)  # the delivery thread goes on
    assert reported == [RuntimeError, RuntimeError]
    assert [event.kind for event in after.settled()] == ["changed", "changed"]


@pytest.mark.parametrize("backend", HEARS_OTHERS, indirect=True)
@FORK_WITH_THREADS
def test_a_forked_child_hears_changes_on_its_own_delivery_thread(kc: Keychain, other: Keychain, backend: str) -> None:
    parent = Recorder()
    kc.observe("a", parent)
    other["a"] = "before the fork"
    parent.wait_for(1)

    def child() -> Dict[str, Any]:
        heard = Recorder()
        kc.observe("b", heard)  # the inherited keychain, with the parent's observer
        own = Keychain.in_memory(service=kc.service, sharing=kc) if backend == "memory" else Keychain(service=kc.service)
        try:
            own["b"] = "from the child's own keychain"
            heard.wait_for(1)
            kc["b"] = "through the inherited keychain"
            own.remove_value("b")
            heard.wait_for(3)
            kinds = [event.kind for event in heard.settled()]
        finally:
            own.close()
        kc.close()  # joins the child's delivery thread, never the parent's
        return {"kinds": kinds}

    assert _fork(child) == {"kinds": ["changed", "set", "deleted"]}
    assert not kc.closed
    other["a"] = "after the fork"
    events = parent.wait_for(2)
    assert [event.kind for event in events] == ["changed", "changed"]


@FORK_WITH_THREADS
def test_a_forked_child_may_close_an_observed_keychain_at_once(kc: Keychain) -> None:
    kc.observe("a", Recorder())

    def child() -> Dict[str, Any]:
        kc.close()
        return {"closed": kc.closed}

    assert _fork(child) == {"closed": True}
    kc["a"] = "the parent's keychain still works"
    assert kc["a"] == "the parent's keychain still works"


# -- sharing in-memory items -------------------------------------------------


def test_shared_in_memory_keychains_read_each_others_items() -> None:
    first = Keychain.in_memory(service="first")
    second = Keychain.in_memory(service="second", sharing=first)
    third = Keychain.in_memory(service="first", sharing=second)  # sharing a sharer
    try:
        first["a"] = "x"
        assert second.value("a", service="first") == "x"
        assert third["a"] == "x"
        assert second.service == "second" and second.backend == "memory"
        first.close()  # the items live while one of their keychains is open
        assert third["a"] == "x"
        del third["a"]
        assert second.get("a") is None and second.value("a", service="first") is None
    finally:
        for keychain in (first, second, third):
            keychain.close()
    with Keychain.in_memory(service="first") as fresh:
        assert fresh.accounts() == []  # a new one has items of its own


def test_sharing_needs_an_open_in_memory_keychain(secret_service: None) -> None:
    with pytest.raises(InvalidArgument, match="in-memory Keychain, not str"):
        Keychain.in_memory(sharing="kc")  # type: ignore[arg-type]
    with Keychain() as on_the_service:
        with pytest.raises(InvalidArgument, match="in-memory Keychain, not a secret-service one"):
            Keychain.in_memory(sharing=on_the_service)
    closed = Keychain.in_memory()
    closed.close()
    with pytest.raises(KeychainClosed):
        Keychain.in_memory(sharing=closed)
    with pytest.raises(ValueError):  # InvalidArgument is a ValueError
        Keychain.in_memory(sharing=object())  # type: ignore[arg-type]


# -- other tools (Secret Service) --------------------------------------------


@pytest.fixture
def observed(secret_service: None, service: str) -> Iterator[Tuple[Keychain, Recorder, Recorder]]:
    """A Secret Service keychain observing account "a" and, to check that
    nothing leaks to other keys, account "b"."""
    with Keychain(service=service) as keychain:
        on_a, on_b = Recorder(), Recorder()
        keychain.observe("a", on_a)
        keychain.observe("b", on_b)
        yield keychain, on_a, on_b


def exactly_one(on_a: Recorder, on_b: Recorder, kind: str) -> None:
    on_a.wait_for(1)
    assert on_a.kinds() == [(kind, "a")]
    assert on_b.events == []
    on_a.events.clear()


@not_on_server("keepassxc", KEEPASSXC_SECRET_TOOL_REPLACE)
def test_secret_tool_store_and_clear_are_heard(observed: Tuple[Keychain, Recorder, Recorder], service: str) -> None:
    kc, on_a, on_b = observed
    secret_tool("store", "--label=from secret-tool", "service", service, "username", "a", secret="created")
    exactly_one(on_a, on_b, "changed")
    assert kc["a"] == "created"
    secret_tool("store", "--label=from secret-tool", "service", service, "username", "a", secret="replaced")
    exactly_one(on_a, on_b, "changed")
    assert kc["a"] == "replaced"
    secret_tool("clear", "service", service, "username", "a")
    exactly_one(on_a, on_b, "deleted")
    assert "a" not in kc


def test_python_keyring_set_and_delete_are_heard(observed: Tuple[Keychain, Recorder, Recorder], service: str) -> None:
    from keyring.backends.SecretService import Keyring

    kc, on_a, on_b = observed
    keyring = Keyring()
    keyring.set_password(service, "a", "from keyring")
    exactly_one(on_a, on_b, "changed")
    assert kc["a"] == "from keyring"
    keyring.delete_password(service, "a")
    exactly_one(on_a, on_b, "deleted")
    assert "a" not in kc


def test_our_cli_updating_an_item_in_place_is_heard(observed: Tuple[Keychain, Recorder, Recorder], service: str) -> None:
    kc, on_a, on_b = observed
    secret_tool("store", "--label=existing", "service", service, "username", "a", secret="old")
    exactly_one(on_a, on_b, "changed")
    environment = {name: value for name, value in os.environ.items() if name != "KEYCHAINKIT_BACKEND"}
    result = subprocess.run(
        [str(CLI), "set", "--service", service, "a"], input="new\n", capture_output=True, text=True, env=environment, timeout=30
    )
    assert result.returncode == 0, result.stderr
    exactly_one(on_a, on_b, "changed")
    assert kc["a"] == "new"
