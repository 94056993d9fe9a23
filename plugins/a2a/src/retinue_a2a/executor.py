"""The A2A side of a served team: the SDK's agent executor, mapped onto task chains.

A task's id is the id of the task chain its first message starts in the context's team:

- the message is on its way to the entry agent: `working`;
- a message between members in the chain: `working`, with that message as the status;
- a response to the person in the chain: `completed`, with it as the status message;
- a request or instruction to the person, a call waiting for `/approve`, an `ask_person`
  question: `input-required` (the client's next message in the task goes to that member);
- a failure notice to the person: `failed`;
- `tasks/cancel`: the cascading `/stop` of the chain, then `canceled`.

A completed task's metadata says what the chain spent (`retinue.usage`).
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

from a2a.helpers import new_task, new_text_message
from a2a.server.agent_execution import AgentExecutor, RequestContext
from a2a.server.events import EventQueue
from a2a.server.tasks import TaskUpdater
from a2a.types.a2a_pb2 import Message, Role, TaskState
from retinue import aggregate_usage

from retinue_a2a.conversations import Conversation, Conversations, Heard, forget, listen
from retinue_a2a.remote import USAGE_KEY

if TYPE_CHECKING:
    from retinue import ActorAddress

logger = logging.getLogger("retinue_a2a.serve")


class TeamExecutor(AgentExecutor):
    """Runs each A2A task as a request to a context's team (see the module docstring)."""

    def __init__(self, conversations: Conversations) -> None:
        self.conversations = conversations

    async def execute(self, context: RequestContext, event_queue: EventQueue) -> None:
        task_id = context.task_id or ""
        context_id = context.context_id or ""
        updater = TaskUpdater(event_queue, task_id, context_id)
        if context.current_task is None:
            history = [context.message] if context.message is not None else []
            await event_queue.enqueue_event(
                new_task(task_id, context_id, TaskState.TASK_STATE_SUBMITTED, history=history)
            )
        text = context.get_user_input()
        if not text.strip():
            await updater.reject(self._said(updater, "the message has no text"))
            return
        try:
            conversation = await asyncio.to_thread(self.conversations.get, context_id)
        except Exception as exc:  # noqa: BLE001 - the client hears it, in one line
            logger.warning("context %s: the team could not start: %s", context_id, exc)
            await updater.failed(self._said(updater, f"The team could not start: {exc}"))
            return
        recipient = await asyncio.to_thread(conversation.answerer, task_id)
        queue = listen(conversation, task_id)
        try:
            await updater.start_work()
            await asyncio.to_thread(conversation.running.send, text, recipient, chain_id=task_id)
            await self._follow(conversation, queue, updater)
        finally:
            forget(conversation, task_id)

    async def _follow(
        self, conversation: Conversation, queue: asyncio.Queue[Heard], updater: TaskUpdater
    ) -> None:
        while True:
            heard = await queue.get()
            said = self._said(updater, f"{heard.who}: {heard.text}" if heard.who else heard.text)
            if heard.kind == "progress":
                await updater.update_status(TaskState.TASK_STATE_WORKING, said)
            elif heard.kind == "answer":
                await updater.update_status(
                    TaskState.TASK_STATE_COMPLETED,
                    self._said(updater, heard.text),
                    metadata={USAGE_KEY: _spent(conversation, updater.task_id)},
                )
                return
            elif heard.kind == "question":
                if heard.who:
                    conversation.asking[updater.task_id] = heard.who
                await updater.requires_input(said)
                return
            else:
                await updater.failed(said)
                return

    async def cancel(self, context: RequestContext, event_queue: EventQueue) -> None:
        """The cascading `/stop` of the task's chain: to its entry agent (and to a member
        the task waits on), as the person."""
        task_id = context.task_id or ""
        updater = TaskUpdater(event_queue, task_id, context.context_id or "")
        conversation = await asyncio.to_thread(self.conversations.get, context.context_id or "")
        targets: list[ActorAddress] = [conversation.running.entry]
        asker = await asyncio.to_thread(conversation.answerer, task_id)
        if asker not in targets:
            targets.append(asker)
        for target in targets:
            await asyncio.to_thread(conversation.running.send, "/stop", target)
        await updater.cancel(self._said(updater, "Stopped by the client."))

    @staticmethod
    def _said(updater: TaskUpdater, text: str) -> Message:
        return new_text_message(
            text, context_id=updater.context_id, task_id=updater.task_id, role=Role.ROLE_AGENT
        )


def _spent(conversation: Conversation, chain_id: str) -> dict[str, int]:
    spent = aggregate_usage(conversation.usage.pop(chain_id, []))
    return {
        "requests": spent.requests,
        "input_tokens": spent.input_tokens,
        "output_tokens": spent.output_tokens,
        "total_tokens": spent.total_tokens,
    }
