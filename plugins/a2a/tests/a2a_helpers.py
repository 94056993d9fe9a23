"""Servers and clients for the A2A tests: everything on 127.0.0.1, started by the tests."""

from __future__ import annotations

import socket
import threading
import time
import uuid
from collections.abc import AsyncIterator, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any

import httpx
from a2a.client import Client, ClientConfig, create_client
from a2a.types.a2a_pb2 import Message, Part, Role, SendMessageRequest
from retinue import EventMessage, EventSubscriber
from retinue import Message as RetinueMessage

TEAM = Path(__file__).parent / "teams" / "a2a_relay.toml"
TIMEOUT = 60.0


def free_port() -> int:
    """A port free a moment ago (the server takes it a moment later)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@contextmanager
def serving(app: Any, port: int) -> Iterator[str]:
    """`app` served by uvicorn in a thread on 127.0.0.1:`port`; yields its URL."""
    from retinue.kit import uvicorn_server

    server = uvicorn_server(app, host="127.0.0.1", port=port, log_level="warning")
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + TIMEOUT
    while not server.started:  # a condition with a deadline: the server says it listens
        assert thread.is_alive() and time.monotonic() < deadline, "the server did not start"
        time.sleep(0.01)  # sleep-ok: uvicorn says it listens by a flag, with no event to wait on
    try:
        yield f"http://127.0.0.1:{port}/"
    finally:
        server.should_exit = True
        thread.join(TIMEOUT)


class Heard(EventSubscriber):
    """Set once the team publishes an event that `matches` (subscribe it to the team)."""

    def __init__(self, matches: Callable[[Any], bool]) -> None:
        self.matches = matches
        self.event = threading.Event()

    def on_message(self, message: RetinueMessage) -> None:
        if isinstance(message, EventMessage) and self.matches(message.event):
            self.event.set()


def user_message(text: str, *, context_id: str = "", task_id: str = "") -> SendMessageRequest:
    return SendMessageRequest(
        message=Message(
            role=Role.ROLE_USER,
            parts=[Part(text=text)],
            message_id=uuid.uuid4().hex,
            context_id=context_id,
            task_id=task_id,
        )
    )


@asynccontextmanager
async def client(url: str, token: str | None, *, streaming: bool) -> AsyncIterator[Client]:
    """An a2a-sdk client of the agent at `url`, with the token if one is given."""
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    async with httpx.AsyncClient(headers=headers, timeout=TIMEOUT) as http:
        yield await create_client(url, ClientConfig(streaming=streaming, httpx_client=http))
