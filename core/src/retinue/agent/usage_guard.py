"""The tier policy for usage-limit breaches, applied to a handler by a decorator.

This module does not import the agent module: a new agent class needs it, and so does the
module that defines `BaseAgent`. What it needs from an agent is the `AgentLike` protocol.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable
from typing import Any, Protocol, TypeVar

from pydantic import BaseModel

from retinue.actors.address import ActorAddress
from retinue.actors.errors import WarningError, describe_error
from retinue.actors.messages import Message
from retinue.llm.errors import (
    AgentUsageLimitError,
    RunUsageLimitError,
    TeamBudgetExhaustedError,
    UsageLimitError,
)

logger = logging.getLogger(__name__)

OutputT = TypeVar("OutputT", bound=BaseModel)
HandlerT = TypeVar("HandlerT", bound=Callable[..., None])


class AgentLike(Protocol):
    """The part of an agent the guard uses."""

    @property
    def myAddress(self) -> ActorAddress:
        """The agent's address, for messages to the human."""
        ...

    def conclude_without_tools(self, prompt: str, output_type: type[OutputT]) -> OutputT:
        """One tool-free model request that must answer now."""
        ...

    def notify_human(self, text: str) -> None:
        """Tell the team's person; dropped when the team has none."""
        ...

    def hold_for_budget(self, message: Message, refusal: TeamBudgetExhaustedError) -> None:
        """Keep `message` until the team's budget is raised (the run it wanted was refused)."""
        ...


def conclusion_prompt(requester: str, breach: UsageLimitError) -> str:
    """What the model is told when its turn ran out of budget."""
    return (
        f"This turn hit its usage limit ({breach}). You can no longer call tools. "
        f"Answer {requester} now with what you have gathered so far, and state plainly "
        "which parts you could not check or finish."
    )


def try_conclude_without_tools(
    agent: AgentLike,
    message: Message,
    breach: RunUsageLimitError,
    output_type: type[OutputT],
    route: Callable[[Any, OutputT], bool],
) -> bool:
    """One tool-free conclusion, routed like any output; True when something went out."""
    requester = message.sender.name if message.sender is not None else "the requester"
    try:
        output = agent.conclude_without_tools(conclusion_prompt(requester, breach), output_type)
        return bool(route(agent, output))
    except Exception as exc:
        logger.warning(
            "%s: the conclusion attempt failed: %s", agent.myAddress.name, describe_error(exc)
        )
        logger.debug("traceback of the failed conclusion attempt", exc_info=True)
        return False


def escalate_usage_limit(agent: AgentLike, breach: UsageLimitError) -> None:
    """Tell the human about the breach, then end the handler with a `WarningError`.

    The error says the person was told, so the failure path answers the agent that waits
    for this turn without telling the person a second time.
    """
    agent.notify_human(f"{agent.myAddress.name} stopped: {breach}")
    raise WarningError(str(breach), person_told=True) from breach


def guard_usage_limits(
    *, output_type: type[OutputT], route: Callable[[Any, OutputT], bool]
) -> Callable[[HandlerT], HandlerT]:
    """Apply the tier policy to a `receiveMsg_*` handler.

    Run tier: one tool-free conclusion in `output_type`, delivered by `route` (skipped when the
    message had no sender); if it raises or delivers nothing, escalate the original breach.
    Agent tier: escalate at once. Team budget: the message is held until the person raises
    it. The exception class decides; no message text is parsed.
    """

    def decorate(handler: HandlerT) -> HandlerT:
        @functools.wraps(handler)
        def guarded(self: AgentLike, message: Message, sender: ActorAddress | None) -> None:
            try:
                handler(self, message, sender)
            except TeamBudgetExhaustedError as refusal:
                self.hold_for_budget(message, refusal)
            except RunUsageLimitError as breach:
                if message.sender is None or not try_conclude_without_tools(
                    self, message, breach, output_type, route
                ):
                    escalate_usage_limit(self, breach)
            except AgentUsageLimitError as breach:
                escalate_usage_limit(self, breach)

        return guarded  # type: ignore[return-value]

    return decorate
