"""`TeamLog`: what an orchestrator keeps in memory of what it observed, and its queries.

The recent window of messages (`TeamConfig.window_size` of them; the whole record is the
store's) and each reporting actor's latest state checkpoint, dropped when the actor stops.
Both are bounded, by the window's size and by the team's, so no query costs more as the team
goes on; both are touched from the orchestrator's thread only.
"""

from __future__ import annotations

from collections import deque
from typing import TYPE_CHECKING

from retinue.actors.messages import EventMessage, Message, StateChangedMessage, StopMessage

if TYPE_CHECKING:
    from pydantic import BaseModel


class TeamLog:
    """The window of recent messages, oldest first, and the latest checkpoint of each actor."""

    __slots__ = ("_states", "window")

    def __init__(self, size: int) -> None:
        self.window: deque[Message] = deque(maxlen=size)
        self._states: dict[str, BaseModel] = {}

    def add(self, message: Message) -> None:
        self.window.append(message)
        sender = message.sender
        if sender is None:
            return
        if isinstance(message, StateChangedMessage):
            self._states[sender.agent_id] = message.state
        elif isinstance(message, StopMessage):
            self._states.pop(sender.agent_id, None)

    def states(self) -> dict[str, BaseModel]:
        """The latest state checkpoint of each running actor that published one, by agent id."""
        return dict(self._states)

    def events(
        self, agent_id: str | None = None, event_class: type[object] | str | None = None
    ) -> list[EventMessage]:
        """The window's `EventMessage`s, of the actor `agent_id` only and of events of
        `event_class` only (a class, or a class name as the record's `kind` is) if given."""
        found = []
        for message in self.window:
            if not isinstance(message, EventMessage):
                continue
            if agent_id is not None and (
                message.sender is None or message.sender.agent_id != agent_id
            ):
                continue
            event = message.event
            if event_class is None or (
                isinstance(event, event_class)
                if isinstance(event_class, type)
                else type(event).__name__ == event_class
            ):
                found.append(message)
        return found
