"""Actor threads still running after a shutdown are joined before the interpreter finalizes.

A daemon thread that is still running Python code when the interpreter finalizes is ended in
the middle of what it does, and one ended inside native code (pydantic-core, say) aborts the
whole process. `ActorSystem.shutdown` joins every actor thread within its deadline; those it
could not wait for (still unwinding, or blocked in a handler) get one more bounded wait when
the interpreter exits.
"""

from __future__ import annotations

import atexit
import threading
import time
from collections.abc import Iterable
from typing import ClassVar

EXIT_GRACE = 2.0
"""Seconds the interpreter's exit waits, in all, for actor threads a shutdown left running."""


class _LeftRunning:
    """The threads to wait for at exit, and whether the exit step is registered yet."""

    lock: ClassVar[threading.Lock] = threading.Lock()
    threads: ClassVar[list[threading.Thread]] = []
    registered: ClassVar[bool] = False


def ended_by(thread: threading.Thread, deadline: float) -> bool:
    """Whether `thread` has ended by `deadline` (`time.monotonic()`); no waiting past it."""
    thread.join(max(0.0, deadline - time.monotonic()))
    return not thread.is_alive()


def join_at_exit(threads: Iterable[threading.Thread]) -> None:
    """Have the interpreter's exit wait (bounded by `EXIT_GRACE`) for these threads."""
    with _LeftRunning.lock:
        _LeftRunning.threads.extend(threads)
        if not _LeftRunning.registered:
            # registered after the model loop's own exit step, so it runs before it: the
            # threads may still hand the loop a cancellation on their way out
            atexit.register(_join_left_running)
            _LeftRunning.registered = True


def _join_left_running() -> None:
    deadline = time.monotonic() + EXIT_GRACE
    with _LeftRunning.lock:
        threads, _LeftRunning.threads = _LeftRunning.threads, []
    for thread in threads:
        ended_by(thread, deadline)
