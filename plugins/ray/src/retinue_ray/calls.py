"""`Calls`: the calls a host sent to others and waits on, each settled by its answer or loss.

A call (an ask, a start, a stop, a part of the team) gets an id and a future; the answer
that comes back with the id settles it, and a host lost settles every call still waiting
on it with `ActorNotFoundError`, so no caller waits for a host that is gone.
"""

from __future__ import annotations

import concurrent.futures
import itertools
import threading
from typing import Any

from retinue import AskTimeoutError


class Calls:
    """The calls still waiting for an answer, by id, with the host each went to."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._calls: dict[int, tuple[concurrent.futures.Future[Any], str]] = {}
        self._ids = itertools.count(1)

    def open(self, host: str) -> tuple[int, concurrent.futures.Future[Any]]:
        """A new call to `host`: its id, and the future its answer settles."""
        future: concurrent.futures.Future[Any] = concurrent.futures.Future()
        call_id = next(self._ids)
        with self._lock:
            self._calls[call_id] = (future, host)
        return call_id, future

    def settle(self, call_id: int, ok: bool, value: Any) -> None:
        """Answer the call `call_id` (a value, or an error when not `ok`); once only."""
        with self._lock:
            entry = self._calls.pop(call_id, None)
        if entry is None:
            return
        future = entry[0]
        if ok:
            future.set_result(value)
        else:
            future.set_exception(value)

    def waiting_on(self, host: str) -> list[int]:
        """The ids of the calls still waiting on `host`."""
        with self._lock:
            return [cid for cid, (_, target) in self._calls.items() if target == host]


def wait_answer(future: concurrent.futures.Future[Any], timeout: float, what: str) -> Any:
    """A call's answer, or `AskTimeoutError` naming `what` once `timeout` has passed."""
    try:
        return future.result(timeout)
    except concurrent.futures.TimeoutError:
        raise AskTimeoutError(f"{what} gave no answer within {timeout:g}s") from None
