"""Clocks for the scheduler: the wall clock with one timer thread, and a clock tests move.

A scheduler asks its clock for the time and for one `Timer`, which it re-arms with the
earliest due time after every change. The timer calls back once that time has come; the
callback only tells the scheduler actor to fire what is due, so nothing is delivered from
the timer's thread. Due times are wall-clock seconds (`time.time()`), which mean the same
after a resume in another process.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Protocol

_LONGEST_WAIT = 60.0
"""Seconds the timer thread sleeps at most before looking again (the wall clock may jump)."""


class Timer(Protocol):
    """Calls back once the time it was armed with has come; re-armed after every change."""

    def arm(self, when: float | None) -> None:
        """Call back at `when` (wall-clock seconds); None: nothing is due, stay quiet."""
        ...

    def close(self) -> None:
        """Stop for good; no callback after this returns."""
        ...


class Clock(Protocol):
    """The time, and timers that call back when a time has come."""

    def now(self) -> float:
        """Wall-clock seconds."""
        ...

    def timer(self, callback: Callable[[], None]) -> Timer:
        """A timer calling `callback` (from any thread) whenever an armed time has come."""
        ...


class SystemClock:
    """The wall clock; each timer is one daemon thread, whatever the number of notifications."""

    def now(self) -> float:
        return time.time()

    def timer(self, callback: Callable[[], None]) -> Timer:
        return ThreadTimer(callback, self.now)


class ThreadTimer:
    """One thread waiting on a condition for the earliest armed time."""

    def __init__(self, callback: Callable[[], None], now: Callable[[], float]) -> None:
        self._callback = callback
        self._now = now
        self._when: float | None = None
        self._closed = False
        self._condition = threading.Condition()
        self._thread = threading.Thread(target=self._run, name="retinue-notify-timer", daemon=True)
        self._thread.start()

    def arm(self, when: float | None) -> None:
        with self._condition:
            self._when = when
            self._condition.notify()

    def close(self) -> None:
        with self._condition:
            self._closed = True
            self._condition.notify()
        if threading.current_thread() is not self._thread:
            self._thread.join(timeout=5.0)

    def _run(self) -> None:
        while True:
            with self._condition:
                while not self._closed and (self._when is None or self._when > self._now()):
                    wait = None if self._when is None else self._when - self._now()
                    self._condition.wait(None if wait is None else min(wait, _LONGEST_WAIT))
                if self._closed:
                    return
                self._when = None  # fired once; the scheduler re-arms with what is left
            self._callback()


class ManualClock:
    """A clock that moves only when told: tests fire notifications without sleeping.

    `advance` calls every timer whose armed time has come, in the calling thread, before it
    returns; the callback tells the scheduler actor, so `wait_idle` then covers the firing.
    """

    def __init__(self, start: float = 1_800_000_000.0) -> None:
        self._now = start
        self._lock = threading.Lock()
        self._timers: list[ManualTimer] = []

    def now(self) -> float:
        return self._now

    def timer(self, callback: Callable[[], None]) -> Timer:
        made = ManualTimer(callback, self._lock)
        with self._lock:
            self._timers.append(made)
        return made

    def advance(self, seconds: float) -> None:
        """Move the time on by `seconds` and call the timers that are due."""
        if seconds < 0:
            raise ValueError("a clock only moves forward")
        with self._lock:
            self._now += seconds
            due = [t for t in self._timers if t.when is not None and t.when <= self._now]
            for fired in due:
                fired.when = None
        for fired in due:
            fired.fire()


class ManualTimer:
    """A `ManualClock`'s timer: remembers the time it was armed with."""

    def __init__(self, callback: Callable[[], None], lock: threading.Lock) -> None:
        self._callback = callback
        self._lock = lock
        self.when: float | None = None
        self._closed = False

    def arm(self, when: float | None) -> None:
        with self._lock:
            self.when = None if self._closed else when

    def close(self) -> None:
        with self._lock:
            self._closed = True
            self.when = None

    def fire(self) -> None:
        if not self._closed:
            self._callback()
