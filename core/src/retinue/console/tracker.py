"""What a watcher of a team knows from its record: members, who is working, usage, commands.

Built from the messages the orchestrator records only (no asks), so it costs the team
nothing and also works for members that have already left. Fed in the orchestrator's
thread, read from others: every read and write holds one lock.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass

from retinue.actors.address import ActorAddress
from retinue.actors.messages import EventMessage, Message, StartMessage, StopMessage
from retinue.agent.events import CommandsAnnouncedEvent
from retinue.llm.events import LlmEvent, RunFinishedEvent, RunStartedEvent
from retinue.llm.usage import AgentUsageSummary, RunUsageSummary, UsageLedger
from retinue.tools.commands import CommandDescriptor


@dataclass(frozen=True)
class MemberSeen:
    """A member as the record showed it: its address and who started it."""

    address: ActorAddress
    parent: ActorAddress | None


class TeamTracker:
    """Folds a team's record into the few facts a console shows."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._members: dict[str, MemberSeen] = {}
        self._working: dict[str, str] = {}  # agent name -> run id in flight
        self._usage: dict[str, UsageLedger] = {}
        self._commands: dict[str, list[CommandDescriptor]] = {}

    def add(self, message: Message) -> None:
        """Fold one recorded message."""
        with self._lock:
            if isinstance(message, StartMessage) and _joins(message):
                assert message.sender is not None
                member = MemberSeen(message.sender, message.parent)
                self._members[message.sender.name] = member
            elif isinstance(message, StopMessage) and message.sender is not None:
                self._members.pop(message.sender.name, None)
                self._working.pop(message.sender.name, None)
            elif isinstance(message, EventMessage):
                self._add_event(message.event)

    def _add_event(self, event: object) -> None:
        if isinstance(event, CommandsAnnouncedEvent):
            self._commands[event.agent.name] = list(event.commands)
            return
        if not isinstance(event, LlmEvent):
            return
        name = event.agent_name
        if isinstance(event, RunStartedEvent) and event.run_id is not None:
            self._working[name] = event.run_id
        elif isinstance(event, RunFinishedEvent) and self._working.get(name) == event.run_id:
            del self._working[name]
        ledger = self._usage.get(name)
        if ledger is None:
            ledger = self._usage[name] = UsageLedger()
        ledger.add(event)

    # ------------------------------------------------------------------ reading
    def working(self) -> list[str]:
        """The agents with a run in flight, in the order their runs began."""
        with self._lock:
            return list(self._working)

    def members(self) -> list[ActorAddress]:
        """The members now in the team, in the order they joined."""
        with self._lock:
            return [m.address for m in self._members.values()]

    def member(self, name: str) -> ActorAddress | None:
        """The member called `name` (`@Name`), if it is in the team now."""
        with self._lock:
            seen = self._members.get(name)
            return seen.address if seen is not None else None

    def usage(self) -> dict[str, AgentUsageSummary]:
        """Each agent's usage so far (members that left included), in order of first use."""
        with self._lock:
            return {name: ledger.summary() for name, ledger in self._usage.items()}

    def run_usage(self, name: str, run_id: str | None) -> RunUsageSummary | None:
        """The usage of one run of the agent called `name` (recent runs only)."""
        with self._lock:
            ledger = self._usage.get(name)
            return ledger.run_summary(run_id) if ledger is not None and run_id else None

    def commands(self, name: str) -> list[CommandDescriptor]:
        """The slash commands the member called `name` announced."""
        with self._lock:
            return list(self._commands.get(name, []))


def _joins(start: StartMessage) -> bool:
    """A start of a member: not the orchestrator's own (the team's record of itself), not
    an actor attached to the team without being on its roster (the planning board)."""
    sender = start.sender
    return sender is not None and start.member and sender.agent_id != sender.team_id
