"""Serving HTTP from a `retinue` command (`retinue web`, `retinue mcp serve --http`).

uvicorn closes a keep-alive connection left idle (`timeout_keep_alive`) and h11 bounds a
request's head (16 KiB), but nothing closes a connection whose request is only half sent:
400 of them hold 400 sockets for as long as their senders like. `uvicorn_server` gives
uvicorn an h11 protocol that closes a connection whose request has not wholly arrived
(head and body) within `request_timeout` seconds of the connection's opening or of its
previous response; a request once received may take as long as its answer needs.

`sigterm_as_interrupt` makes SIGTERM end a command as Ctrl-C does. uvicorn catches both
signals while it serves, shuts down, then raises the one it caught again: SIGINT then
reaches the command as `KeyboardInterrupt`, but SIGTERM, by default, kills the process
before the team behind the server is shut down and its stop recorded.

Used by plugins that depend on uvicorn; the kernel itself does not (uvicorn is imported
only here, and only when a server is built).
"""

from __future__ import annotations

import contextlib
import logging
import signal
import threading
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import asyncio

    import uvicorn

REQUEST_TIMEOUT = 10.0
"""Seconds a connection may take to send a whole request (head and body)."""

logger = logging.getLogger(__name__)


def uvicorn_server(
    app: Any, *, request_timeout: float = REQUEST_TIMEOUT, **config: Any
) -> uvicorn.Server:
    """A uvicorn server for `app` whose connections must send a request within
    `request_timeout` seconds; `config` goes to `uvicorn.Config` (no access log by default:
    a URL may carry a token)."""
    import uvicorn

    config.setdefault("access_log", False)
    protocol = type("BoundedH11Protocol", (_bounded_protocol(),), {"timeout": request_timeout})
    return uvicorn.Server(uvicorn.Config(app, http=protocol, **config))


def _bounded_protocol() -> type[asyncio.Protocol]:
    import h11
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class Bounded(H11Protocol):
        """h11, closing a connection whose request is not in within `timeout` seconds."""

        timeout: float = REQUEST_TIMEOUT
        deadline: asyncio.TimerHandle | None = None

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self.arm()

        def on_response_complete(self) -> None:
            super().on_response_complete()
            self.arm()  # the next request on this connection gets the same time

        def connection_lost(self, exc: Exception | None) -> None:
            if self.deadline is not None:
                self.deadline.cancel()
            super().connection_lost(exc)

        def arm(self) -> None:
            if self.deadline is not None:
                self.deadline.cancel()
            self.deadline = self.loop.call_later(self.timeout, self.expire)

        def expire(self) -> None:
            if self.conn.their_state is h11.DONE or self.transport.is_closing():
                return  # the request is in: its answer may take as long as it needs
            logger.info("closed a connection whose request did not arrive in %gs", self.timeout)
            self.transport.close()

    return Bounded


SIGTERM_STATUS = 128 + signal.SIGTERM
"""The exit status of a command ended by SIGTERM, as a shell reports a process it killed."""


@contextlib.contextmanager
def sigterm_ends_session() -> Iterator[None]:
    """SIGTERM raises `SystemExit` while the block runs (main thread only), so a session
    whose Ctrl-C only stops the run in flight still shuts its team down, and records it,
    when it is told to stop (`kill`, a service manager)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def end(signum: int, frame: object) -> None:
        raise SystemExit(SIGTERM_STATUS)

    previous = signal.signal(signal.SIGTERM, end)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


@contextlib.contextmanager
def sigterm_as_interrupt() -> Iterator[None]:
    """SIGTERM raises `KeyboardInterrupt` while the block runs (in the main thread only,
    where signals are handled), so the command's own cleanup shuts its team down."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    previous = signal.signal(signal.SIGTERM, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)
