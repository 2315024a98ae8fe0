# SPDX-License-Identifier: MIT
"""Changes made elsewhere reach Python callbacks: the binding's side.

The library's semantics of changes made elsewhere (which writes are heard
as "changed" and "deleted", which keys, coalescing, unobserving, fork,
other tools) are asserted by the C ABI suite, IntegrationTests/c
(test_outside_changes.c, test_observers.c, test_observer_threads.c). Here:
one change made elsewhere arrives as a ``ChangeEvent`` on the delivery
thread, and what a Python callback running there may do (read, close the
keychain, raise), with the binding's handle lifetime and the GIL; and
``Keychain.in_memory(sharing=...)``, the binding's face of
kk_open_memory_shared. Every positive is awaited with a bounded wait
(:data:`WAIT`), never a sleep; "nothing more" is checked after
:data:`SETTLE` seconds, well past the library's coalescing (KK_OBSERVE_COALESCE_MS).
"""

from __future__ import annotations

import sys
import threading
import time
from typing import Any, Iterator, List

import pytest

from keychainkit import ChangeEvent, InvalidArgument, Keychain, KeychainClosed, Status
from support import HEARS_OTHERS, open_keychain

#: Seconds an expected event may take to arrive.
WAIT = 3.0

#: Seconds without further events after which none is expected any more.
SETTLE = 0.4


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


@pytest.fixture
def other(kc: Keychain, backend: str) -> Iterator[Keychain]:
    """Another keychain on ``kc``'s items, with the same service."""
    keychain = Keychain.in_memory(service=kc.service, sharing=kc) if backend == "memory" else open_keychain(backend, kc.service)
    try:
        yield keychain
    finally:
        keychain.close()


# -- on the delivery thread (memory and Secret Service) -----------------------


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


@pytest.mark.parametrize("backend", HEARS_OTHERS, indirect=True)
def test_closing_waits_for_a_callback_which_then_gets_keychain_closed(kc: Keychain, other: Keychain) -> None:
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

    observation = kc.observe("a", slow)
    other["a"] = "x"
    assert entered.wait(WAIT)
    kc.close()  # waits for the callback, releasing the GIL meanwhile
    assert finished.is_set(), "close() returned while the callback still ran"
    assert len(outcome) == 1 and isinstance(outcome[0], KeychainClosed)
    assert kc.closed and not observation.active
    observation.cancel()  # a no-op now
    other["a"] = "after close"
    assert other["a"] == "after close"


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
    assert after.settled() == [ChangeEvent("changed", kc.service, "a", Status.OK)] * 2
    assert threading.get_ident() not in after.threads  # the delivery thread


# -- sharing in-memory items -------------------------------------------------


def test_shared_in_memory_keychains_read_each_others_items() -> None:
    # Items outliving the first keychain closed, and a new one's items of its
    # own: the library's (IntegrationTests/c/test_arguments.c, test_items.c).
    with Keychain.in_memory(service="first") as first, Keychain.in_memory(service="second", sharing=first) as second:
        first["a"] = "x"
        assert second.value("a", service="first") == "x" and second.get("a") is None
        assert second.service == "second" and second.backend == "memory"


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
