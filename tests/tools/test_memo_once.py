"""`memo_once`: what many threads ask of one map at once is built once and shared."""

from __future__ import annotations

import threading

from retinue import FrozenMap
from retinue.kit import memo_once


def test_callers_arriving_together_share_the_first_build() -> None:
    source: FrozenMap[str, int] = FrozenMap({"a": 1})
    builds: list[int] = []
    inside = threading.Event()
    release = threading.Event()

    def build() -> list[int]:
        builds.append(1)
        inside.set()
        release.wait(10)
        return [len(builds)]

    results: list[list[int]] = []
    arrived = threading.Semaphore(0)

    def ask() -> None:
        arrived.release()
        results.append(memo_once(source, "k", build))

    first = threading.Thread(target=lambda: results.append(memo_once(source, "k", build)))
    first.start()
    assert inside.wait(10)  # the first build is under way: the others ask meanwhile
    others = [threading.Thread(target=ask) for _ in range(4)]
    for thread in others:
        thread.start()
    for _ in others:
        assert arrived.acquire(timeout=10)
    release.set()
    for thread in [first, *others]:
        thread.join(10)

    assert builds == [1]
    assert len(results) == 5 and all(result is results[0] for result in results)
    assert memo_once(source, "k", build) is results[0]
    assert memo_once(source, "other", lambda: ["x"]) == ["x"]  # another key, its own build
