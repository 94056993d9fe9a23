"""The teams behind a served A2A agent: one team per A2A context, its person's seat ours.

Each A2A context (a conversation) is a team of its own, started from the team file in the
server's one actor system the first time the context is used, and kept for the server's
life: a second message in the context speaks to the same team, whose members remember the
first. With a store, the team records which context it is (`A2AContextEvent`), and a server
started again on that store resumes it from its record at the context's next message.

A task is a task chain of that team, named by the task's id: what the team says to the
person in that chain, and the messages between its members there, reach whoever waits on
the task.

Thread-safe where it must be: seats and subscribers call in from actor threads, the A2A
side runs on the server's event loop.
"""

from __future__ import annotations

import asyncio
import json
import logging
import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from retinue import (
    ActorAddress,
    AgentMessage,
    EventMessage,
    EventSubscriber,
    FailureNotice,
    HumanProxy,
    LlmUsageEvent,
    Message,
    SentMessage,
    ToolApprovalAskedEvent,
)
from retinue.resume import ResumeError, resume_team
from retinue.teamfile import RunningTeam

from retinue_a2a.recorded import A2AContextEvent, read_contexts, record_event

if TYPE_CHECKING:
    from a2a.types.a2a_pb2 import Task
    from retinue import ActorSystem, ModelConfig
    from retinue.store import Store
    from retinue.teamfile import TeamFile

logger = logging.getLogger("retinue_a2a.serve")

Kind = Literal["progress", "answer", "question", "failure"]
ANSWERS = frozenset({"response"})
QUESTIONS = frozenset({"request", "instruction"})


@dataclass(frozen=True)
class Heard:
    """What a task's waiting executor hears: progress, or how the task ends or pauses."""

    kind: Kind
    text: str
    who: str = ""
    """The member who spoke (for a question: who waits for the answer)."""


@dataclass
class Conversation:
    """One A2A context's team, and the tasks waiting on its chains."""

    context_id: str
    running: RunningTeam
    listeners: dict[str, tuple[asyncio.AbstractEventLoop, asyncio.Queue[Heard]]] = field(
        default_factory=dict
    )
    usage: dict[str, list[LlmUsageEvent]] = field(default_factory=dict)
    #: Who (an `@name`) waits for the person's answer in each paused task (its chain).
    asking: dict[str, str] = field(default_factory=dict)

    def member(self, name: str) -> ActorAddress | None:
        """The team's member called `name` now, if any."""
        found: ActorAddress | None = self.running.team.get_team_member(name)
        return found

    def answerer(self, task_id: str) -> ActorAddress:
        """Who the client's message in task `task_id` goes to: the member who asked in it,
        if it still is in the team, else the entry agent."""
        asker = self.asking.pop(task_id, "")
        found = self.member(asker) if asker else None
        return found if found is not None else self.running.entry


class Conversations:
    """Every context's team: started on first use, or resumed from the record (`--store`)
    when an earlier server recorded the context, in one actor system."""

    def __init__(
        self,
        spec: TeamFile,
        *,
        system: ActorSystem,
        model: ModelConfig | None = None,
        store: Store | None = None,
    ) -> None:
        """`store`: where `system` records its teams (None: nothing is recorded)."""
        self.spec = spec
        self.system = system
        self.model = model
        self.store = store
        self._lock = threading.Lock()
        self._teams: dict[str, Conversation] = {}
        self._starting: dict[str, threading.Lock] = {}
        #: The contexts an earlier server recorded, read once at start.
        self.recorded = read_contexts(store, spec.team.name) if store is not None else {}

    def get(self, context_id: str) -> Conversation:
        """The team of `context_id`: running, resumed from the record, or started now if the
        context is new (call from a worker thread)."""
        with self._lock:
            found = self._teams.get(context_id)
            if found is not None:
                return found
            gate = self._starting.setdefault(context_id, threading.Lock())
        with gate:  # two first messages of one context at once start one team
            with self._lock:
                found = self._teams.get(context_id)
            if found is not None:
                return found
            conversation = self._start(context_id)
            with self._lock:
                self._teams[context_id] = conversation
                del self._starting[context_id]
            return conversation

    def running(self, context_id: str) -> Conversation | None:
        """The team of `context_id` if it runs in this server now."""
        with self._lock:
            return self._teams.get(context_id)

    def recorded_tasks(self) -> list[Task]:
        """Every task the record holds, as last recorded (see `recorded`)."""
        return [task for context in self.recorded.values() for task in context.tasks.values()]

    def _start(self, context_id: str) -> Conversation:
        holder: list[Conversation] = []

        class A2ASeat(HumanProxy):
            """The A2A client's seat in one context's team."""

            def on_agent_message(self, message: AgentMessage, sender: ActorAddress | None) -> None:
                if holder:
                    to_person(holder[0], message, sender)
                else:
                    logger.info(
                        "context %s: the person was told, before the team was back: %s",
                        context_id,
                        message.content,
                    )

        recorded = self.recorded.get(context_id)
        if recorded is not None:
            running = self._resume(recorded.team_id, A2ASeat)
            asking = {task: name for task, name in recorded.asking.items() if name}
        else:
            running = self.spec.start(model=self.model, human_class=A2ASeat, system=self.system)
            asking = {}
            try:
                record_event(
                    running, A2AContextEvent(context_id=context_id, team=self.spec.team.name)
                )
            except BaseException:
                running.shutdown()
                raise
        conversation = Conversation(context_id, running, asking=asking)
        holder.append(conversation)
        running.team.subscribe(_Relay(conversation))
        logger.info(
            "context %s: team %s %s",
            context_id,
            self.spec.team.name,
            "resumed" if recorded is not None else "started",
        )
        return conversation

    def _resume(self, team_id: str, seat: type[HumanProxy]) -> RunningTeam:
        """The context's team back from the record, with the team file's cards."""
        store = self.store
        assert store is not None  # a recorded context was read from it
        cards = self.spec.cards(self.model)
        back = resume_team(store, team_id, system=self.system, human_class=seat, profiles=cards)
        entry = next(
            (a for a in back.roster.values() if a.role == self.spec.entry_role), back.entry
        )
        if back.human is None or entry is None:
            for member in [*back.roster.values(), back.orchestrator]:
                self.system.stop_actor(member)
            raise ResumeError(f"team {team_id} came back without the person or its entry agent")
        return RunningTeam(
            spec=self.spec,
            system=self.system,
            orchestrator=back.orchestrator,
            team=back.team,
            human=back.human,
            entry=entry,
            owns_system=False,
        )

    def all(self) -> list[Conversation]:
        with self._lock:
            return list(self._teams.values())

    def shutdown(self, timeout: float) -> None:
        for conversation in self.all():
            conversation.running.shutdown(timeout)


def listen(conversation: Conversation, chain_id: str) -> asyncio.Queue[Heard]:
    """A queue that hears chain `chain_id` from now on (until `forget`)."""
    queue: asyncio.Queue[Heard] = asyncio.Queue()
    conversation.listeners[chain_id] = (asyncio.get_running_loop(), queue)
    return queue


def forget(conversation: Conversation, chain_id: str) -> None:
    conversation.listeners.pop(chain_id, None)


def hear(conversation: Conversation, chain_id: str | None, heard: Heard) -> bool:
    """Pass `heard` to the task waiting on `chain_id`; whether one was."""
    found = conversation.listeners.get(chain_id or "")
    if found is None:
        return False
    loop, queue = found
    try:
        loop.call_soon_threadsafe(queue.put_nowait, heard)
    except RuntimeError:  # the server's loop has closed
        return False
    return True


def to_person(
    conversation: Conversation, message: AgentMessage, sender: ActorAddress | None
) -> None:
    """A message to the person: a task's answer, failure, question, or progress."""
    who = sender.name if sender is not None else ""
    if isinstance(message, FailureNotice):
        kind: Kind = "failure"
    elif message.type in ANSWERS:
        kind = "answer"
    elif message.type in QUESTIONS:
        kind = "question"
    else:
        kind = "progress"
    if not hear(conversation, message.chain_id, Heard(kind, message.content, who)):
        logger.info(
            "context %s: %s told the person, with no task waiting: %s",
            conversation.context_id,
            who or "someone",
            message.content,
        )


class _Relay(EventSubscriber):
    """A team's traffic between members as progress; its usage; approvals as questions."""

    def __init__(self, conversation: Conversation) -> None:
        self._conversation = conversation

    def on_message(self, message: Message) -> None:
        conversation = self._conversation
        if isinstance(message, EventMessage):
            event: Any = message.event
            if isinstance(event, LlmUsageEvent) and message.chain_id:
                conversation.usage.setdefault(message.chain_id, []).append(event)
            elif isinstance(event, ToolApprovalAskedEvent):
                chain = event.message.chain_id
                lines = [
                    f"[{call.id}] {call.tool}({json.dumps(call.args)})" for call in event.calls
                ]
                text = f"{event.agent.name} waits for your answer:\n" + "\n".join(lines)
                hear(conversation, chain, Heard("question", text, event.agent.name))
        elif isinstance(message, SentMessage) and isinstance(message.message, AgentMessage):
            sent = message.message
            recipient = sent.recipient or message.recipient
            if recipient is None or recipient.is_user_proxy or sent.sender is None:
                return  # what reaches the person is the seat's
            if sent.sender.is_user_proxy:
                return  # the person's own words
            line = f"{sent.sender.name} -> {recipient.name} ({sent.type}): {sent.content}"
            hear(conversation, sent.chain_id, Heard("progress", line, sent.sender.name))
