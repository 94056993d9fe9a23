"""The one asyncio loop, in a daemon thread, that runs every model request in the process.

Why one loop: a pydantic-ai HTTP model used from threads with different loops fails ("bound
to a different event loop"), and one loop lets agents share a model, so one connection pool
per configuration. Actor threads submit a coroutine and block on its result.

The loop is protected from its callers: it is created lazily (never at import), refuses a
blocking call from its own thread (that would deadlock), and cancels a run whose caller
stopped waiting. Nothing raised inside a run can end it: every task on the loop (the ones
pydantic-ai and anyio start inside a run included) turns a `SystemExit`, `KeyboardInterrupt`
or other bare `BaseException` into `LoopTaskAbortedError`, so that run fails and the others go
on; a callback that raises one is logged and the loop keeps running. At interpreter exit the
loop stops and its thread is joined, so the process never finalizes under a running loop.

pydantic-ai runs sync model functions and sync tools through anyio's default thread limiter,
which belongs to the loop and so is shared by every agent: 40 threads unless configured.
It is set here on purpose (`configure_model_loop`, or `RETINUE_MODEL_THREADS`).
"""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import logging
import os
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

from retinue.actors.errors import log_failure

T = TypeVar("T")

logger = logging.getLogger(__name__)

DEFAULT_THREAD_LIMIT = 100
THREAD_LIMIT_ENV = "RETINUE_MODEL_THREADS"
EXIT_TIMEOUT = 2.0
"""Seconds the interpreter's exit waits for the loop thread to stop."""


class LoopTaskAbortedError(RuntimeError):
    """A `SystemExit`, `KeyboardInterrupt` or other bare `BaseException` raised in a loop task.

    It fails the task it was raised in (and so that run), never the loop.
    """


def _escapes(exc: BaseException) -> bool:
    """Whether `exc` gets past `except Exception` (asyncio's cancellation and close aside)."""
    return not isinstance(exc, Exception | asyncio.CancelledError | GeneratorExit)


async def _contained(coro: Coroutine[Any, Any, T]) -> T:
    try:
        return await coro
    except BaseException as exc:
        if not _escapes(exc):
            raise
        detail = f": {exc}" if str(exc) else ""
        raise LoopTaskAbortedError(
            f"{type(exc).__name__}{detail} raised inside a model run; the run failed, "
            "the model loop goes on"
        ) from exc


def _contained_task(loop: asyncio.AbstractEventLoop, coro: Any, **kwargs: Any) -> asyncio.Task[Any]:
    """The loop's task factory: every task, whoever creates it, runs inside `_contained`."""
    if asyncio.iscoroutine(coro):
        coro = _contained(coro)
    return asyncio.Task(coro, loop=loop, **kwargs)


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
        self._loop.set_task_factory(_contained_task)
        self._stopping = False
        ready = threading.Event()
        self._thread = threading.Thread(target=self._main, args=(ready,), name=name, daemon=True)
        self._thread.start()
        ready.wait()
        atexit.register(self._stop_at_exit)
        self.run(_set_thread_limit(self._thread_limit), timeout=30)

    def _main(self, ready: threading.Event) -> None:
        asyncio.set_event_loop(self._loop)
        self._loop.call_soon(ready.set)
        while not self._stopping and not self._loop.is_closed():
            try:
                self._loop.run_forever()
            # a callback raised past asyncio: keep serving runs
            except BaseException as exc:  # noqa: BLE001
                log_failure(logger, "a callback on the model loop raised; the loop goes on", exc)

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
        """Schedule `coro` on the loop from any thread; returns a thread-safe future.

        The coroutine runs in a copy of the caller's context: its context variables are seen
        by the run, by the tasks it starts and by the worker threads of its sync functions.
        """
        if not self.is_alive():
            coro.close()
            raise RuntimeError("the model loop thread is not running; no model run can be made")
        return asyncio.run_coroutine_threadsafe(coro, self._loop)

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
        self._stopping = True
        atexit.unregister(self._stop_at_exit)
        if self._thread.is_alive() and not self._loop.is_closed():
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(timeout)
        if not self._thread.is_alive() and not self._loop.is_closed():
            self._loop.close()

    def _stop_at_exit(self) -> None:
        """Never let the interpreter finalize while this thread may be inside a model call.

        A daemon thread still running Python code at finalization is ended mid-call, and one
        ended inside native code (pydantic-core) aborts the whole process. The loop is left
        open: a thread on its way out may still hand it a callback, which then never runs.
        """
        self._stopping = True
        if self._thread.is_alive():
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(EXIT_TIMEOUT)


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
