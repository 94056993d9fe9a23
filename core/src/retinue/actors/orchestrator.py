"""`Orchestrator`: one per team — roster, role profiles, subscribers, a window of messages."""

from __future__ import annotations

import logging
import re
from collections import deque
from typing import Any, ClassVar

from pydantic import BaseModel

from retinue.actors import runtime
from retinue.actors.actor import Actor
from retinue.actors.address import ActorAddress
from retinue.actors.card import AgentCard
from retinue.actors.config import BaseConfig, BaseState
from retinue.actors.messages import Message, StartMessage, StopMessage
from retinue.actors.names import check_member_name
from retinue.actors.subscriber import EventSubscriber, MessageSink

logger = logging.getLogger(__name__)

_TRAILING_NUMBER = re.compile(r"\d+$")


class TeamMember(BaseModel):
    """One roster line: who, which role, who hired them, and whether they are busy now."""

    address: ActorAddress
    parent: ActorAddress | None = None
    busy: bool = False

    @property
    def name(self) -> str:
        return self.address.name

    @property
    def role(self) -> str:
        return self.address.role


class TeamDirectory(BaseModel):
    """Who is in the team and which roles can be hired, read in one ask."""

    members: list[ActorAddress]
    profiles: list[AgentCard]


class Orchestrator(Actor[BaseConfig, BaseState]):
    """The team's registry and observer; never asks an agent anything, so it cannot deadlock."""

    starts_team: ClassVar[bool] = True
    #: How many recent messages stay in memory; the full record goes to the sinks.
    window_size: ClassVar[int] = 1000

    def __init__(self, config: BaseConfig, **kwargs: Any) -> None:
        super().__init__(config, **kwargs)
        self._profiles: dict[str, AgentCard] = {}
        self._members: dict[str, TeamMember] = {}
        self._taken_names: set[str] = {self.myAddress.name}
        self._subscribers: list[EventSubscriber] = []
        self._sinks: list[MessageSink] = []
        self._window: deque[Message] = deque(maxlen=self.window_size)

    # ------------------------------------------------------------------ team
    def createActor(
        self, actor_class: type[Any] | str, config: BaseConfig | None = None
    ) -> ActorAddress:
        """Start a member of this team (a person's proxy, the first agents)."""
        return self.system.spawn(
            actor_class, config, orchestrator=self.myAddress, parent=self.myAddress
        )

    def admit(self, address: ActorAddress, parent: ActorAddress | None = None) -> ActorAddress:
        """Enter a new member under a name unique in the team (`@Dev`, `@Dev2`, ...).

        Raises `ValueError` for a name no member may carry (see `check_member_name`).
        """
        name = check_member_name(address.name or f"@{address.role}")
        if name in self._taken_names:
            stem = _TRAILING_NUMBER.sub("", name) or name
            n = 2
            while f"{stem}{n}" in self._taken_names:
                n += 1
            name = check_member_name(f"{stem}{n}")
        self._taken_names.add(name)
        admitted = address.model_copy(update={"name": name, "team_id": self.myAddress.team_id})
        self._members[admitted.agent_id] = TeamMember(address=admitted, parent=parent)
        return admitted

    def get_team(self) -> list[TeamMember]:
        """The current roster, with whether each member is busy right now."""
        roster = []
        for member in self._members.values():
            actor = runtime.lookup(member.address.agent_id)
            busy = actor is not None and actor.describe_busy() is not None
            roster.append(member.model_copy(update={"busy": busy}))
        return roster

    def get_team_members(self) -> list[ActorAddress]:
        """Addresses of the current members."""
        return [m.address for m in self._members.values()]

    def get_team_member(self, name: str) -> ActorAddress | None:
        """The member with this `@name`, or None."""
        for member in self._members.values():
            if member.address.name == name:
                return member.address
        return None

    def get_directory(self) -> TeamDirectory:
        """Members and role profiles together (what routing checks need, in one ask)."""
        return TeamDirectory(members=self.get_team_members(), profiles=self.get_agent_profiles())

    def get_user_proxies(self) -> list[ActorAddress]:
        """Members that stand for people."""
        return [m.address for m in self._members.values() if m.address.is_user_proxy]

    # ------------------------------------------------------------------ profiles
    def register_agent_profiles(self, cards: list[AgentCard]) -> None:
        """Make roles hireable by name; a later card for the same role replaces the earlier."""
        for card in cards:
            if not card.role:
                raise ValueError("an AgentCard needs config.role to be registered")
            self._profiles[card.role] = card

    def get_agent_profiles(self) -> list[AgentCard]:
        """Every registered role blueprint."""
        return list(self._profiles.values())

    def get_agent_profile(self, role: str) -> AgentCard | None:
        """The blueprint for `role`, or None."""
        return self._profiles.get(role)

    # ------------------------------------------------------------------ observation
    def subscribe(self, subscriber: EventSubscriber) -> None:
        """Add an observer of every recorded message."""
        self._subscribers.append(subscriber)

    def unsubscribe(self, subscriber: EventSubscriber) -> None:
        """Remove an observer."""
        if subscriber in self._subscribers:
            self._subscribers.remove(subscriber)

    def add_sink(self, sink: MessageSink) -> None:
        """Add a durable record keeper (the event store)."""
        self._sinks.append(sink)

    def get_messages(self) -> list[Message]:
        """The recent window of recorded messages, oldest first."""
        return list(self._window)

    def receiveMsg_Message(self, message: Message, sender: ActorAddress | None) -> None:
        if isinstance(message, StopMessage) and sender is not None:
            self._members.pop(sender.agent_id, None)
        elif isinstance(message, StartMessage) and sender is not None:
            member = self._members.get(sender.agent_id)
            if member is not None and member.parent is None:
                self._members[sender.agent_id] = member.model_copy(
                    update={"parent": message.parent}
                )
        self._window.append(message)
        for sink in self._sinks:
            try:
                sink.record(message)
            except Exception:
                logger.exception("sink %r failed to record a message", sink)
        for subscriber in list(self._subscribers):
            try:
                subscriber.on_message(message)
            except Exception:
                logger.exception("subscriber %r failed", subscriber)

    def on_stop(self) -> None:
        for subscriber in self._subscribers:
            try:
                subscriber.on_stop()
            except Exception:
                logger.exception("subscriber %r failed to stop", subscriber)
