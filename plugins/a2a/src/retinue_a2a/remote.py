"""One exchange with a remote A2A agent: a message out, its task followed to an answer.

Built on the a2a-sdk client (`create_client`: the agent card is read from the agent's URL,
and the transport it offers is used). Streamed updates are passed to `progress` as they
come; the answer is the text of the first message, or of the task once it completed or
waits for input. A cancelled exchange (the member's run stopped) cancels the remote task
before it ends. Every other way it can go wrong is one `RemoteAgentError` line.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import httpx
from a2a.client import A2AClientError, Client, ClientConfig, create_client
from a2a.types.a2a_pb2 import (
    CancelTaskRequest,
    GetTaskRequest,
    Message,
    Part,
    Role,
    SendMessageRequest,
    StreamResponse,
    Task,
    TaskState,
)

from retinue_a2a.errors import RemoteAgentError
from retinue_a2a.states import PAUSED, TERMINAL, message_text, state_name, task_text

logger = logging.getLogger("retinue_a2a")

CANCEL_TIMEOUT = 10.0
"""Seconds the remote agent gets to take a cancel, after the member's run was stopped."""
USAGE_KEY = "retinue.usage"
"""Where a task's metadata reports what it spent (`input_tokens`, `output_tokens`, ...):
a served retinue team puts it there; another agent may."""


@dataclass
class Answer:
    """What the remote agent said, and whether it waits for more input in `task_id`."""

    text: str
    state: str
    task_id: str | None
    context_id: str | None
    usage: dict[str, int] = field(default_factory=dict)

    @property
    def wants_input(self) -> bool:
        return self.state == state_name(TaskState.TASK_STATE_INPUT_REQUIRED)


@dataclass
class Exchange:
    """Where to send, how, and what to report meanwhile."""

    url: str
    timeout: float
    headers: dict[str, str] = field(default_factory=dict)
    streaming: bool = True
    progress: Callable[[str, str, str], None] = lambda task_id, state, text: None


async def exchange(
    remote: Exchange, text: str, *, context_id: str | None, task_id: str | None
) -> Answer:
    """Send `text` (in the conversation `context_id`, continuing `task_id` if it waits for
    input) and follow the task until it answers, within `remote.timeout`."""
    message = Message(
        role=Role.ROLE_USER,
        parts=[Part(text=text)],
        message_id=uuid.uuid4().hex,
        context_id=context_id or "",
        task_id=task_id or "",
    )
    follower = _Follower(remote)
    async with httpx.AsyncClient(headers=remote.headers, timeout=remote.timeout) as http:
        try:
            async with asyncio.timeout(remote.timeout):
                client = await create_client(
                    remote.url, ClientConfig(streaming=remote.streaming, httpx_client=http)
                )
                try:
                    return await follower.follow(client, SendMessageRequest(message=message))
                except asyncio.CancelledError:
                    follower.cancel()
                    raise
                finally:
                    await client.close()
        except TimeoutError:
            raise RemoteAgentError(
                f"the A2A agent at {remote.url} did not answer within {remote.timeout:g} s"
            ) from None
        except (A2AClientError, httpx.HTTPError, ValueError) as exc:
            raise RemoteAgentError(f"the A2A agent at {remote.url}: {_reason(exc)}") from None


class _Follower:
    """The events of one exchange, read until the answer."""

    def __init__(self, remote: Exchange) -> None:
        self.remote = remote
        self.task_id: str | None = None
        self.finished = False

    async def follow(self, client: Client, request: SendMessageRequest) -> Answer:
        async for event in client.send_message(request):
            answer = self._read(event)
            if answer is not None:
                self.finished = True
                return answer
        if self.task_id is None:
            raise RemoteAgentError(f"the A2A agent at {self.remote.url} sent no answer")
        task = await client.get_task(GetTaskRequest(id=self.task_id))  # a stream that ended early
        answer = self._read_task(task)
        if answer is None:
            raise RemoteAgentError(
                f"the A2A agent at {self.remote.url} ended its stream with task "
                f"{task.id} still {state_name(task.status.state)}"
            )
        self.finished = True
        return answer

    def _read(self, event: StreamResponse) -> Answer | None:
        if event.HasField("message"):
            message = event.message
            return Answer(message_text(message), "completed", None, message.context_id or None)
        if event.HasField("task"):
            return self._read_task(event.task)
        if event.HasField("status_update"):
            update = event.status_update
            self.task_id = update.task_id
            state = update.status.state
            said = message_text(update.status.message) if update.status.HasField("message") else ""
            self.remote.progress(update.task_id, state_name(state), said)
            if state in TERMINAL or state in PAUSED:
                return self._settle(
                    update.task_id, update.context_id, state, said, _usage(update.metadata)
                )
        if event.HasField("artifact_update"):
            update = event.artifact_update
            said = "\n".join(p.text for p in update.artifact.parts if p.text)
            self.remote.progress(update.task_id, "working", said)
        return None

    def _read_task(self, task: Task) -> Answer | None:
        self.task_id = task.id
        state = task.status.state
        if state in TERMINAL or state in PAUSED:
            return self._settle(
                task.id, task.context_id, state, task_text(task), _usage(task.metadata)
            )
        self.remote.progress(task.id, state_name(state), task_text(task))
        return None

    def _settle(
        self, task_id: str, context_id: str, state: int, text: str, usage: dict[str, int]
    ) -> Answer:
        name = state_name(state)
        if state in (TaskState.TASK_STATE_COMPLETED, TaskState.TASK_STATE_INPUT_REQUIRED):
            return Answer(text, name, task_id, context_id or None, usage)
        said = f": {text}" if text else ""
        raise RemoteAgentError(f"the A2A agent at {self.remote.url} ended its task {name}{said}")

    def cancel(self) -> None:
        """Cancel the remote task of a stopped run, in a task of its own: the run's own
        awaits are all cancelled now, and its HTTP client is closing."""
        if self.task_id is None or self.finished:
            return
        task = asyncio.get_running_loop().create_task(_cancel(self.remote, self.task_id))
        _CANCELLING.add(task)
        task.add_done_callback(_CANCELLING.discard)


_CANCELLING: set[asyncio.Task[None]] = set()
"""Cancels on their way (kept referenced until done)."""


async def _cancel(remote: Exchange, task_id: str) -> None:
    """Tell the remote agent to cancel `task_id` (best effort, bounded, logged if it fails)."""
    try:
        async with (
            asyncio.timeout(CANCEL_TIMEOUT),
            httpx.AsyncClient(headers=remote.headers, timeout=CANCEL_TIMEOUT) as http,
        ):
            client = await create_client(remote.url, ClientConfig(httpx_client=http))
            try:
                await client.cancel_task(CancelTaskRequest(id=task_id))
            finally:
                await client.close()
    except (TimeoutError, A2AClientError, httpx.HTTPError, ValueError) as exc:
        logger.warning(
            "could not cancel task %s of the A2A agent at %s: %s", task_id, remote.url, _reason(exc)
        )


def _usage(metadata: Any) -> dict[str, int]:
    """What a task's (or its last update's) metadata says it spent (`retinue.usage`): a
    protobuf `Struct`, read as the mapping it is."""
    if USAGE_KEY not in metadata:
        return {}
    found = metadata[USAGE_KEY]
    if not isinstance(found, Mapping):
        return {}
    return {
        key: int(value)
        for key, value in found.items()
        if isinstance(key, str) and isinstance(value, int | float) and 0 <= value < 2**53
    }


def _reason(exc: BaseException) -> str:
    text = " ".join(str(exc).split()) or type(exc).__name__
    return text if len(text) <= 300 else text[:299] + "…"
