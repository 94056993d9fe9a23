"""The one asyncio loop, in a daemon thread, that runs every model request in the process.

Why one loop: a pydantic-ai HTTP model used from threads with different loops fails ("bound
to a different event loop"), and one loop lets agents share a model, so one connection pool
per configuration. Actor threads submit a coroutine and block on its result.

The loop is protected from its callers: it is created lazily (never at import), refuses a
blocking call from its own thread (that would deadlock), turns a `KeyboardInterrupt` or
`SystemExit` raised inside a run into an ordinary error (either would otherwise stop the loop
thread, and every agent with it), and cancels a run whose caller stopped waiting.

pydantic-ai runs sync model functions and sync tools through anyio's default thread limiter,
which belongs to the loop and so is shared by every agent: 40 threads unless configured.
It is set here on purpose (`configure_model_loop`, or `RETINUE_MODEL_THREADS`).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")

DEFAULT_THREAD_LIMIT = 100
THREAD_LIMIT_ENV = "RETINUE_MODEL_THREADS"


class LoopTaskAbortedError(RuntimeError):
    """A `KeyboardInterrupt` or `SystemExit` was raised inside a coroutine on the model loop."""


async def _guarded(coro: Coroutine[Any, Any, T]) -> T:
    try:
        return await coro
    except (KeyboardInterrupt, SystemExit) as exc:
        raise LoopTaskAbortedError(f"{type(exc).__name__} raised inside a model run") from exc


async def _set_thread_limit(limit: int) -> None:
    import anyio.to_thread

    anyio.to_thread.current_default_thread_limiter().total_tokens = limit


def _check_limit(limit: int) -> int:
    if isinstance(limit, bool) or not isinstance(limit, int) or limit < 1:
        raise ValueError(f"thread limit must be a positive integer, got {limit!r}")
    return limit


class ModelLoop:
    """An asyncio loop running forever in its own daemon thread."""

    def __init__(
        self, *, thread_limit: int = DEFAULT_THREAD_LIMIT, name: str = "retinue-model-loop"
    ):
        self._thread_limit = _check_limit(thread_limit)
        self._loop = asyncio.new_event_loop()
        ready = threading.Event()
        self._thread = threading.Thread(target=self._main, args=(ready,), name=name, daemon=True)
        self._thread.start()
        ready.wait()
        self.run(_set_thread_limit(self._thread_limit), timeout=30)

    def _main(self, ready: threading.Event) -> None:
        asyncio.set_event_loop(self._loop)
        self._loop.call_soon(ready.set)
        self._loop.run_forever()

    @property
    def loop(self) -> asyncio.AbstractEventLoop:
        return self._loop

    @property
    def thread(self) -> threading.Thread:
        return self._thread

    @property
    def thread_limit(self) -> int:
        """Worker threads for sync model functions and tools, shared by every agent."""
        return self._thread_limit

    def is_alive(self) -> bool:
        return self._thread.is_alive() and not self._loop.is_closed()

    def in_loop_thread(self) -> bool:
        return threading.current_thread() is self._thread

    def submit(self, coro: Coroutine[Any, Any, T]) -> concurrent.futures.Future[T]:
        """Schedule `coro` on the loop from any thread; returns a thread-safe future."""
        if not self.is_alive():
            coro.close()
            raise RuntimeError("the model loop thread is not running; no model run can be made")
        return asyncio.run_coroutine_threadsafe(_guarded(coro), self._loop)

    def run(self, coro: Coroutine[Any, Any, T], timeout: float | None) -> T:
        """Run `coro` on the loop and block for its result; cancel it if `timeout` passes."""
        if self.in_loop_thread():
            coro.close()
            raise RuntimeError(
                "blocking on the model loop from its own thread would deadlock; await instead"
            )
        future = self.submit(coro)
        try:
            return future.result(timeout)
        except concurrent.futures.TimeoutError:
            if future.done():  # the coroutine itself raised a TimeoutError
                raise
            future.cancel()
            raise TimeoutError(f"model loop call did not finish within {timeout:g}s") from None
        except BaseException:
            future.cancel()  # the caller gave up (e.g. KeyboardInterrupt): do not leak the run
            raise

    def set_thread_limit(self, limit: int) -> None:
        self._thread_limit = _check_limit(limit)
        self.run(_set_thread_limit(limit), timeout=30)

    def stop(self, timeout: float = 5.0) -> None:
        """Stop the loop and join its thread (pending runs are abandoned)."""
        if self._thread.is_alive():
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(timeout)
        if not self._thread.is_alive() and not self._loop.is_closed():
            self._loop.close()


class _Shared:
    """The process-wide loop and its configured size, guarded by `lock`."""

    lock = threading.Lock()
    loop: ModelLoop | None = None
    thread_limit: int | None = None


def _default_limit() -> int:
    if _Shared.thread_limit is not None:
        return _Shared.thread_limit
    raw = os.environ.get(THREAD_LIMIT_ENV)
    if raw is None or not raw.strip():
        return DEFAULT_THREAD_LIMIT
    try:
        return _check_limit(int(raw))
    except ValueError:
        raise ValueError(f"{THREAD_LIMIT_ENV} must be a positive integer, got {raw!r}") from None


def get_model_loop() -> ModelLoop:
    """The process-wide model loop, started on first use."""
    with _Shared.lock:
        if _Shared.loop is None:
            _Shared.loop = ModelLoop(thread_limit=_default_limit())
        elif not _Shared.loop.is_alive():
            raise RuntimeError("the model loop thread has died; restart the process")
        return _Shared.loop


def configure_model_loop(*, thread_limit: int) -> None:
    """Size the worker threads for sync model functions and tools (now, or at loop start)."""
    with _Shared.lock:
        _Shared.thread_limit = _check_limit(thread_limit)
        running = _Shared.loop
    if running is not None:
        running.set_thread_limit(thread_limit)


def shutdown_model_loop() -> None:
    """Stop the loop; the next use starts a fresh one. For tests and controlled shutdown.

    Models holding HTTP clients bound to the old loop must not be reused afterwards.
    """
    with _Shared.lock:
        loop, _Shared.loop = _Shared.loop, None
    if loop is not None:
        loop.stop()


def submit(coro: Coroutine[Any, Any, T]) -> concurrent.futures.Future[T]:
    """Schedule `coro` on the shared model loop."""
    return get_model_loop().submit(coro)


def run(coro: Coroutine[Any, Any, T], timeout: float | None) -> T:
    """Run `coro` on the shared model loop and wait at most `timeout` seconds for it."""
    return get_model_loop().run(coro, timeout)
