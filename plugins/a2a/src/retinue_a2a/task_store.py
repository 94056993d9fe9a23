"""The served agent's task store: the SDK's in-memory one, written through to the record.

`tasks/get` and `tasks/list` answer from memory (the SDK's own filtering and pages); every
change of a task's state is also recorded in its context's team (`A2ATaskEvent`), and a
server started on the same store fills the memory from the record before its first answer.
So the record is the truth and the memory its index: no table of the plugin's own, no second
file, and `retinue log` shows a team's tasks among its messages.

A progress update that leaves the state as it was (`working`, with the next message between
members) is not recorded on its own: the task's next state carries it in its history.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from a2a.server.context import ServerCallContext
from a2a.server.tasks import InMemoryTaskStore, TaskStore
from a2a.types.a2a_pb2 import ListTasksRequest, ListTasksResponse, Task

from retinue_a2a.recorded import record_event, task_event

if TYPE_CHECKING:
    from retinue_a2a.conversations import Conversations


class RecordedTaskStore(TaskStore):
    """Tasks in memory for the answers, in the context's team record for a restart."""

    def __init__(self, conversations: Conversations) -> None:
        self.conversations = conversations
        self._memory = InMemoryTaskStore()
        self._recorded: dict[str, int] = {}  # task id -> the state last recorded
        self._loaded = False
        self._loading = asyncio.Lock()

    async def _load(self) -> None:
        """The tasks the record holds, once, before the first answer."""
        async with self._loading:
            if self._loaded:
                return
            # Every task is the one person's: the bearer token is the only identity here.
            anyone = ServerCallContext()
            for task in self.conversations.recorded_tasks():
                await self._memory.save(task, anyone)
                self._recorded[task.id] = task.status.state
            self._loaded = True

    async def save(self, task: Task, context: ServerCallContext) -> None:
        await self._load()
        await self._memory.save(task, context)
        if self._recorded.get(task.id) == task.status.state:
            return
        conversation = self.conversations.running(task.context_id)
        if conversation is None:  # no team yet (the task's first save, a rejected message)
            return
        event = task_event(task, conversation.asking.get(task.id, ""))
        await asyncio.to_thread(record_event, conversation.running, event)
        self._recorded[task.id] = task.status.state

    async def get(self, task_id: str, context: ServerCallContext) -> Task | None:
        await self._load()
        return await self._memory.get(task_id, context)

    async def list(self, params: ListTasksRequest, context: ServerCallContext) -> ListTasksResponse:
        await self._load()
        return await self._memory.list(params, context)

    async def delete(self, task_id: str, context: ServerCallContext) -> None:
        """Forgotten by this server (the record keeps what it recorded)."""
        await self._load()
        await self._memory.delete(task_id, context)
        self._recorded.pop(task_id, None)
