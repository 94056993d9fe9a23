"""What the task-chain rules need of an agent, and the team's ledger reached through it.

`stops`, `loops` and `ChainGuard` use an agent only through `ChainHost`, whose members are
all public: a second agent class can host them as `BaseAgent` does.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Protocol

from retinue.actors.address import ActorAddress
from retinue.actors.messages import Message
from retinue.agent.messages import AgentMessage

if TYPE_CHECKING:
    from retinue.actors.runtime_api import Runtime
    from retinue.team.chains import TeamChains
    from retinue.team.view import Team

logger = logging.getLogger(__name__)


class TeamHolder(Protocol):
    """An agent with a team view: all `ledger_of` needs."""

    myAddress: ActorAddress

    @property
    def team(self) -> Team | None: ...


class ChainHost(TeamHolder, Protocol):
    """The part of an agent the chain rules use; `BaseAgent` is one."""

    orchestrator: ActorAddress | None

    @property
    def system(self) -> Runtime: ...

    @property
    def current_message(self) -> Message | None: ...

    def send(self, recipient: ActorAddress, message: Message) -> None: ...

    def stamp(self, recipient: ActorAddress, message: Message) -> Message: ...

    def notify_event(self, event: Any) -> None: ...

    def notify_human(self, text: str) -> None: ...

    def consume_mailbox(self, predicate: Any) -> list[Message]: ...

    def take_into_turn(self, predicate: Callable[[Message], bool], limit: int) -> list[Message]: ...


def ledger_of(agent: TeamHolder) -> TeamChains | None:
    """The team's chain ledger; None for an agent outside any team (or whose team is gone:
    an orchestrator that has stopped, as at shutdown, leaves nothing to count for)."""
    team = agent.team
    if team is None:
        return None
    try:
        return team.chains
    except RuntimeError as exc:
        logger.debug("%s: no chain ledger: %s", agent.myAddress.name, exc)
        return None


def current_chain(agent: ChainHost) -> str | None:
    """The task chain of the message `agent` is handling, if any."""
    current = agent.current_message
    return current.chain_id if current is not None else None


def tell(agent: ChainHost, cancel: Message, text: str) -> None:
    """Answer the person who asked (their proxy), else the team's person."""
    sender = cancel.sender
    if sender is not None and sender.is_user_proxy:
        agent.send(sender, AgentMessage(content=text, type="notification", parent_id=cancel.id))
    else:
        agent.notify_human(text)
