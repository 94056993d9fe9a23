"""The shared model loop: usable from any thread, protected from its callers."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Iterator

import anyio.to_thread
import pytest
from retinue.llm.loop import (
    DEFAULT_THREAD_LIMIT,
    LoopTaskAbortedError,
    ModelLoop,
    configure_model_loop,
    get_model_loop,
)


@pytest.fixture
def loop() -> Iterator[ModelLoop]:
    """A private loop, so stopping it cannot disturb the process-wide one."""
    model_loop = ModelLoop(thread_limit=7, name="test-model-loop")
    yield model_loop
    model_loop.stop()


async def _thread_limit() -> float:
    return anyio.to_thread.current_default_thread_limiter().total_tokens


async def _current_thread() -> threading.Thread:
    return threading.current_thread()


def test_shared_loop_is_lazy_and_single() -> None:
    first = get_model_loop()
    assert first is get_model_loop()
    assert first.thread.daemon
    assert first.run(_current_thread(), timeout=5) is first.thread


def test_the_shared_loop_can_be_resized() -> None:
    shared = get_model_loop()
    try:
        configure_model_loop(thread_limit=123)
        assert shared.run(_thread_limit(), timeout=5) == 123
    finally:
        configure_model_loop(thread_limit=DEFAULT_THREAD_LIMIT)
    assert shared.thread_limit == DEFAULT_THREAD_LIMIT > 40  # above anyio's default


def test_thread_limiter_is_sized_deliberately(loop: ModelLoop) -> None:
    assert loop.run(_thread_limit(), timeout=5) == 7
    loop.set_thread_limit(64)
    assert loop.run(_thread_limit(), timeout=5) == 64
    with pytest.raises(ValueError, match="positive integer"):
        loop.set_thread_limit(0)


def test_runs_from_many_threads(loop: ModelLoop) -> None:
    async def square(value: int) -> int:
        await asyncio.sleep(0)  # sleep-ok: yields to the loop once, no waiting
        return value * value

    results: dict[int, int] = {}

    def worker(value: int) -> None:
        results[value] = loop.run(square(value), timeout=10)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(20)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert results == {n: n * n for n in range(20)}


def test_blocking_from_the_loop_thread_is_refused(loop: ModelLoop) -> None:
    async def nested() -> str:
        async def inner() -> str:
            return "never"

        try:
            loop.run(inner(), timeout=1)
        except RuntimeError as exc:
            return str(exc)
        return "ran"

    assert "would deadlock" in loop.run(nested(), timeout=5)


def test_keyboard_interrupt_in_a_run_does_not_kill_the_loop(loop: ModelLoop) -> None:
    async def interrupted() -> None:
        raise KeyboardInterrupt

    with pytest.raises(LoopTaskAbortedError, match="KeyboardInterrupt"):
        loop.run(interrupted(), timeout=5)
    assert loop.is_alive()
    assert loop.run(_thread_limit(), timeout=5) == 7


def test_timeout_cancels_the_task(loop: ModelLoop) -> None:
    cancelled = threading.Event()

    async def forever() -> None:
        try:
            await asyncio.Event().wait()
        finally:
            cancelled.set()

    with pytest.raises(TimeoutError, match="did not finish within"):
        loop.run(forever(), timeout=0.05)
    assert cancelled.wait(5)


def test_a_timeout_raised_by_the_coroutine_is_its_own(loop: ModelLoop) -> None:
    async def fails() -> None:
        raise TimeoutError("from the coroutine")

    with pytest.raises(TimeoutError, match="from the coroutine"):
        loop.run(fails(), timeout=5)


def test_a_stopped_loop_refuses_work() -> None:
    model_loop = ModelLoop(thread_limit=2)
    model_loop.stop()
    coro = _thread_limit()
    with pytest.raises(RuntimeError, match="not running"):
        model_loop.run(coro, timeout=1)
