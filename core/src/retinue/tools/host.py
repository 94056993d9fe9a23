"""What a tool card may ask of the agent it is bound to.

The tools layer sits below the agent layer, so a card never imports `BaseAgent`; it talks to
this protocol instead, and any actor class that provides these members can host cards.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

if TYPE_CHECKING:
    from retinue.actors.address import ActorAddress
    from retinue.actors.config import BaseConfig, BaseState
    from retinue.actors.messages import Message
    from retinue.actors.runtime_api import Runtime
    from retinue.team.view import Team


@runtime_checkable
class ToolHost(Protocol):
    """The agent a card is bound to, seen from the card."""

    @property
    def myAddress(self) -> ActorAddress:
        """This agent's address."""
        ...

    @property
    def config(self) -> BaseConfig:
        """This agent's configuration (an `AgentConfig` for a `BaseAgent`)."""
        ...

    @property
    def state(self) -> BaseState:
        """This agent's current state; read through it on every use, never cache it."""
        ...

    @property
    def system(self) -> Runtime:
        """The runtime the agent runs in (to stop a member, ask an actor, ...).

        Only the members of `Runtime` are there for a card: another runtime than the
        in-process one may be behind it.
        """
        ...

    @property
    def orchestrator(self) -> ActorAddress | None:
        """The team's orchestrator, or None for an agent outside any team."""
        ...

    @property
    def team(self) -> Team | None:
        """The team this agent belongs to, as a typed view; None outside any team.

        Reading it never waits: members and profiles come from the latest published
        directory. Use it instead of asking the orchestrator by method name.
        """
        ...

    def send(self, recipient: ActorAddress, message: Message) -> None:
        """Deliver a message from this agent."""
        ...

    def createActor(self, actor_class: type[Any] | str, config: BaseConfig) -> ActorAddress:
        """Start an actor that joins this agent's team."""
        ...

    def notify_event(self, event: Any) -> None:
        """Publish an event to the orchestrator's subscribers."""
        ...

    def peek_mailbox(self) -> Sequence[Message]:
        """The messages waiting in this agent's mailbox, oldest first, without removing them."""
        ...

    def consume_mailbox(self, predicate: Callable[[Message], bool]) -> list[Message]:
        """Remove and return the pending messages matching `predicate` (a `HandledMessage` each)."""
        ...
