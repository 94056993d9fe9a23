"""A stand-in agent for card tests, until the agent layer exists: only what cards touch."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from pydantic import Field
from retinue.actors.address import ActorAddress
from retinue.actors.config import BaseConfig, BaseState
from retinue.actors.messages import Message
from retinue.tools import ToolState


class FakeState(BaseState):
    tool_state: ToolState = Field(default_factory=ToolState)


class FakeHost:
    """Satisfies `ToolHost`; records what it is asked to send."""

    def __init__(self, name: str) -> None:
        self.myAddress = ActorAddress(name=name, role="Tester")
        self.config = BaseConfig(name=name, role="Tester")
        self.state = FakeState()
        self.orchestrator: ActorAddress | None = None
        self.team: Any = None  # outside any team
        self.system: Any = None  # no actor system: cards under test never reach it
        self.sent: list[tuple[ActorAddress, Message]] = []

    def send(self, recipient: ActorAddress, message: Message) -> None:
        self.sent.append((recipient, message))

    def createActor(self, actor_class: type[Any] | str, config: BaseConfig) -> ActorAddress:
        raise NotImplementedError

    def notify_event(self, event: Any) -> None:
        raise NotImplementedError

    def ask_orchestrator(self, method: str, *args: Any, **kwargs: Any) -> Any:
        raise NotImplementedError

    def peek_mailbox(self) -> Sequence[Message]:
        return ()

    def consume_mailbox(self, predicate: Callable[[Message], bool]) -> list[Message]:
        return []
