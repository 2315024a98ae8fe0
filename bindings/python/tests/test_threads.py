# SPDX-License-Identifier: MIT
"""Callbacks fire on the writing thread; one handle serves many threads.
Threads reading, writing and listing one handle: IntegrationTests/c/test_threads.c."""

from __future__ import annotations

import threading
from collections import Counter
from typing import List, Tuple

from keychainkit import ChangeEvent, Keychain

THREADS = 4
WRITES = 25


def test_callbacks_arrive_on_each_writing_thread(kc: Keychain) -> None:
    seen: List[Tuple[int, str]] = []
    lock = threading.Lock()

    def record(event: ChangeEvent) -> None:
        with lock:
            seen.append((threading.get_ident(), event.kind))

    kc.observe("shared", record)
    start = threading.Barrier(THREADS)
    writers: List[int] = []

    def write() -> None:
        writers.append(threading.get_ident())
        start.wait()
        for step in range(WRITES):
            kc["shared"] = f"{threading.get_ident()}-{step}"

    threads = [threading.Thread(target=write) for _ in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert len(seen) == THREADS * WRITES
    assert Counter(ident for ident, _ in seen) == Counter({ident: WRITES for ident in writers})
    assert {kind for _, kind in seen} == {"set"}

