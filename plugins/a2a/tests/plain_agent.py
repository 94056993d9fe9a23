"""A plain A2A agent, written with the a2a-sdk's server alone, for the member tests.

What it does depends on the text it is sent: `fail` ends the task failed, `hang` works
until it is cancelled (and says so in `CANCELLED`), anything else is answered in capitals
after one working update, with its usage in the task's metadata.
"""

from __future__ import annotations

import asyncio
import threading
from typing import Any

from a2a.helpers import new_task, new_text_message
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.request_handlers import DefaultRequestHandler
from a2a.server.routes import create_agent_card_routes, create_jsonrpc_routes
from a2a.server.tasks import InMemoryTaskStore, TaskUpdater
from a2a.types.a2a_pb2 import (
    AgentCapabilities,
    AgentCard,
    AgentInterface,
    AgentSkill,
    TaskState,
)
from starlette.applications import Starlette


class PlainExecutor(AgentExecutor):
    def __init__(self) -> None:
        self.hanging = threading.Event()
        self.cancelled = threading.Event()
        self.received: list[str] = []
        #: The (context, task) each message came in, in order.
        self.seen: list[tuple[str, str]] = []

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        task_id, context_id = context.task_id or "", context.context_id or ""
        if context.current_task is None:
            await event_queue.enqueue_event(
                new_task(task_id, context_id, TaskState.TASK_STATE_SUBMITTED)
            )
        updater = TaskUpdater(event_queue, task_id, context_id)
        text = context.get_user_input()
        self.received.append(text)
        self.seen.append((context_id, task_id))
        say = new_text_message
        await updater.start_work(say("reading it", context_id=context_id, task_id=task_id))
        if text == "ask":  # a question back; the answer comes in the same task
            await updater.requires_input(say("which one?", context_id=context_id, task_id=task_id))
        elif text == "fail":
            await updater.failed(say("the disk is full", context_id=context_id, task_id=task_id))
        elif text == "hang":
            self.hanging.set()
            await asyncio.Event().wait()  # until cancelled
        else:
            await updater.update_status(
                TaskState.TASK_STATE_COMPLETED,
                say(text.upper(), context_id=context_id, task_id=task_id),
                metadata={"retinue.usage": {"input_tokens": 7, "output_tokens": 3}},
            )

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        self.cancelled.set()
        updater = TaskUpdater(event_queue, context.task_id or "", context.context_id or "")
        await updater.cancel()


def plain_app(executor: PlainExecutor, url: str) -> Any:
    card = AgentCard(
        name="shouter",
        description="Answers in capitals",
        version="1.0",
        supported_interfaces=[
            AgentInterface(url=url, protocol_binding="JSONRPC", protocol_version="1.0")
        ],
        capabilities=AgentCapabilities(streaming=True),
        default_input_modes=["text/plain"],
        default_output_modes=["text/plain"],
        skills=[AgentSkill(id="shout", name="shout", description="shouts", tags=["shout"])],
    )
    handler = DefaultRequestHandler(
        agent_executor=executor, task_store=InMemoryTaskStore(), agent_card=card
    )
    routes = [*create_agent_card_routes(card), *create_jsonrpc_routes(handler, "/")]
    return Starlette(routes=routes)
