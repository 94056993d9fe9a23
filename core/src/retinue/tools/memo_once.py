"""`memo_once`: a value derived from a frozen map, built once however many ask at once.

`FrozenMap.memo` shares what it derives, but two threads that miss it together both build
it. A card's context section is read by every agent at the start of its turn, so after a
change they all miss together: with `memo_once` the first builds and the others wait for
that build instead of each making their own.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from typing import Any, TypeVar

from retinue.frozen import FrozenMap

T = TypeVar("T")


def memo_once(source: FrozenMap[Any, Any], key: Hashable, build: Callable[[], T]) -> T:
    """`build()`, made once per map and `key` and shared by every caller.

    Once made it is found without a lock; the callers of the first build wait on one lock
    of this map and `key`, so builds for other maps or keys never wait for it.
    """
    return source.memo(key, lambda _: _build_locked(source, key, build))


def _build_locked(source: FrozenMap[Any, Any], key: Hashable, build: Callable[[], T]) -> T:
    lock: threading.Lock = source.memo(("memo_once.lock", key), lambda _: threading.Lock())
    with lock:  # whoever waited here finds the first build under the inner key
        value: T = source.memo(("memo_once.built", key), lambda _: build())
    return value
