"""`StubHost`: a card's agent in a unit test, with no team, no model and no actor behind it.

A card talks to its agent only through `ToolHost`; binding it to this host runs its tools
and commands as plain method calls (`MyTool().bind(StubHost("@Ada"))`), for what needs no
running team. What the card does to its agent is either kept for the test to read (its
events, what it took from the mailbox) or an `AssertionError` naming it (a message sent, a
hire, a question to the orchestrator), since such a card expects none of them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from retinue.actors.address import ActorAddress
from retinue.actors.config import BaseConfig, BaseState
from retinue.actors.messages import Message


class StubHost:
    """A `ToolHost` named `name` (an address, or a name whose role is the name without `@`).

    `team` is the team view the card sees (None: outside any team); `pending` is its
    mailbox, which the card peeks at and consumes from as from the kernel's; `events` keeps
    what the card published. `system` and `orchestrator` are None.
    """

    def __init__(
        self,
        name: ActorAddress | str = "@Agent",
        *,
        team: Any = None,
        pending: Iterable[Message] = (),
        state: BaseState | None = None,
    ) -> None:
        if isinstance(name, str):
            name = ActorAddress(name=name, role=name.removeprefix("@"))
        self.myAddress = name
        self.config = BaseConfig(name=name.name, role=name.role)
        self.state = state if state is not None else BaseState()
        self.orchestrator: ActorAddress | None = None
        self.system: Any = None  # no runtime: a card under such a test never reaches one
        self.team = team
        self.pending: list[Message] = list(pending)
        self.events: list[Any] = []

    def send(self, recipient: ActorAddress, message: Message) -> None:
        raise AssertionError(f"the card sent {type(message).__name__} to {recipient.name}")

    def createActor(self, actor_class: type[Any] | str, config: BaseConfig) -> ActorAddress:
        raise AssertionError(f"the card hired {config.name or config.role} directly")

    def notify_event(self, event: Any) -> None:
        self.events.append(event)

    def peek_mailbox(self) -> Sequence[Message]:
        return list(self.pending)

    def consume_mailbox(self, predicate: Callable[[Message], bool]) -> list[Message]:
        taken = [m for m in self.pending if predicate(m)]
        self.pending = [m for m in self.pending if not predicate(m)]
        return taken
