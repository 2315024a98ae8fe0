# SPDX-License-Identifier: MIT
"""close(), context managers, and use after close: an error, never a crash."""

from __future__ import annotations

import gc
import threading
import weakref
from typing import Callable, List, Set, Tuple

import pytest

from keychainkit import InvalidArgument, Keychain, KeychainClosed, KeychainError
from keychainkit import _ffi, _registry
from support import open_keychain

USES: List[Callable[[Keychain], object]] = [
    lambda kc: kc["a"],
    lambda kc: kc.__setitem__("a", "x"),
    lambda kc: kc.__delitem__("a"),
    lambda kc: "a" in kc,
    lambda kc: kc.get("a"),
    lambda kc: kc.pop("a", None),
    lambda kc: kc.value("a"),
    lambda kc: kc.value_bytes("a"),
    lambda kc: kc.update_value("x", "a"),
    lambda kc: kc.remove_value("a"),
    lambda kc: kc.observe("a", print),
    lambda kc: kc.__enter__(),
    lambda kc: list(kc),
    lambda kc: len(kc),
    lambda kc: kc.accounts(),
    lambda kc: kc.clear(),
]


@pytest.mark.parametrize("use", USES, ids=range(len(USES)))
def test_any_use_after_close_raises_keychain_closed(backend: str, service: str, use: Callable[[Keychain], object]) -> None:
    kc = open_keychain(backend, service)
    kc.close()
    with pytest.raises(KeychainClosed, match="closed") as caught:
        use(kc)
    assert isinstance(caught.value, KeychainError)
    assert isinstance(caught.value, InvalidArgument)
    assert isinstance(caught.value, ValueError)


def test_close_is_idempotent(backend: str, service: str) -> None:
    kc = open_keychain(backend, service)
    assert not kc.closed
    kc.close()
    kc.close()
    assert kc.closed
    assert "closed" in repr(kc)


def test_with_closes_on_exit_even_after_an_exception(backend: str, service: str) -> None:
    with pytest.raises(RuntimeError):
        with open_keychain(backend, service) as kc:
            kc["a"] = "x"
            raise RuntimeError("inside")
    assert kc.closed


def test_close_unregisters_every_observer_and_drops_their_callbacks(kc: Keychain) -> None:
    class Owner:
        def on_change(self, event: object) -> None:
            pass

    owner = Owner()
    observation = kc.observe("a", owner.on_change)
    reference = weakref.ref(owner)
    del owner
    kc.close()
    gc.collect()
    assert reference() is None
    assert not observation.active
    observation.cancel()  # a no-op on a closed keychain


def abandon_a_keychain_in_a_cycle(backend: str, service: str) -> Tuple[weakref.finalize, Set[int]]:
    """Opens a keychain whose observer's callback refers to it, and drops it."""
    kc = open_keychain(backend, service)
    before = set(_registry._routes)
    kc.observe("a", lambda event: print(kc))  # a cycle: kc -> callback -> kc
    return kc._finalizer, set(_registry._routes) - before


def test_an_unclosed_keychain_is_closed_when_collected(backend: str, service: str) -> None:
    gc.disable()
    try:
        finalizer, route = abandon_a_keychain_in_a_cycle(backend, service)
        assert finalizer.alive and len(route) == 1  # only the cycle collector can free it
        gc.collect()
    finally:
        gc.enable()
    assert not finalizer.alive
    assert not route & set(_registry._routes)


def test_closing_while_other_threads_write_never_crashes(backend: str, service: str) -> None:
    kc = open_keychain(backend, service)
    started = threading.Barrier(5)
    outcomes: List[str] = []

    def write(index: int) -> None:
        started.wait()
        for step in range(200):
            try:
                kc[f"account-{index}"] = f"value-{step}"
            except KeychainClosed:
                outcomes.append("closed")
                return
        outcomes.append("finished")

    threads = [threading.Thread(target=write, args=(i,)) for i in range(4)]
    for thread in threads:
        thread.start()
    started.wait()
    kc.close()
    for thread in threads:
        thread.join(timeout=60)
    assert len(outcomes) == 4
    assert kc.closed
    with pytest.raises(KeychainClosed):
        kc["account-0"]


def test_closing_from_inside_a_callback_finishes_the_write(kc: Keychain) -> None:
    values: List[object] = []

    def close_now(event: object) -> None:
        values.append(kc.value("a"))
        kc.close()
        values.append(kc.closed)
        try:
            kc.value("a")  # the handle is still in use by the outer kc[...] = ...
        except KeychainClosed:
            values.append("closed")

    kc.observe("a", close_now)
    kc["a"] = "x"  # returns normally
    assert values == ["x", True, "closed"]
    with pytest.raises(KeychainClosed):
        kc["a"]


def test_the_handle_is_released_only_after_calls_in_flight_return(
    backend: str, service: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    closes: List[object] = []
    real_close = _ffi.kk_close
    monkeypatch.setattr(_ffi, "kk_close", lambda pointer: (closes.append(pointer), real_close(pointer)))
    kc = open_keychain(backend, service)
    inside, release = threading.Event(), threading.Event()
    kc.observe("a", lambda event: (inside.set(), release.wait(30)))
    writer = threading.Thread(target=kc.__setitem__, args=("a", "x"))
    writer.start()
    assert inside.wait(30)
    kc.close()  # returns at once, without waiting for the writer
    assert kc.closed and closes == []
    release.set()
    writer.join(30)
    assert len(closes) == 1
    kc.close()
    assert len(closes) == 1
