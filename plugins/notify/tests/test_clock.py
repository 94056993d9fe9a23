"""The clocks: a test clock fires due timers as it moves; the wall clock's timer thread fires."""

from __future__ import annotations

import threading

import pytest
from retinue_notify import ManualClock, SystemClock


def test_a_manual_timer_fires_once_its_time_has_come_and_not_after_close() -> None:
    clock = ManualClock(start=100.0)
    fired: list[float] = []
    timer = clock.timer(lambda: fired.append(clock.now()))
    timer.arm(110.0)

    clock.advance(9)
    assert fired == []
    clock.advance(1)
    assert fired == [110.0]
    clock.advance(100)  # fired once: re-armed only by its owner
    assert fired == [110.0]
    timer.arm(300.0)
    timer.close()
    clock.advance(1000)
    assert fired == [110.0]
    with pytest.raises(ValueError, match="forward"):
        clock.advance(-1)


def test_the_wall_clock_timer_calls_back_from_its_one_thread() -> None:
    clock = SystemClock()
    called = threading.Event()
    threads: list[str] = []

    def callback() -> None:
        threads.append(threading.current_thread().name)
        called.set()

    timer = clock.timer(callback)
    try:
        timer.arm(clock.now() - 1)  # already due
        assert called.wait(10)
        assert threads == ["retinue-notify-timer"]
    finally:
        timer.close()
