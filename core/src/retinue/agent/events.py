"""Events an agent publishes about itself (all serializable)."""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, SerializeAsAny

from retinue.actors.address import ActorAddress
from retinue.actors.messages import Message
from retinue.team.chains import ChainStop
from retinue.tools.commands import CommandDescriptor


class AgentEvent(BaseModel):
    """An event an agent publishes about itself; `agent` is its address."""

    model_config = ConfigDict(defer_build=True)

    agent: ActorAddress


class CommandsAnnouncedEvent(AgentEvent):
    """The slash commands an agent accepts, announced once at start for frontends."""

    commands: list[CommandDescriptor]


class RoutingSkippedEvent(AgentEvent):
    """An outbound message could not be delivered and was dropped with a note to the model."""

    recipient: str
    reason: str


class ChainStoppedEvent(AgentEvent):
    """A task chain stopped: a person's `/stop` reached the sub-team, or a loop was found.

    `agent` is the member that stopped it (the `/stop`'s target, or the one whose message
    the loop detector refused); `stop` says why, for whom and along which path.
    """

    stop: ChainStop


class ChainMessageHeldEvent(AgentEvent):
    """A loop-stopped task chain kept a refused message for `/continue`.

    `message` is stamped as it would have gone: a resumed team holds it again from here.
    """

    chain_id: str
    message: SerializeAsAny[Message]


class ChainMessageDroppedEvent(AgentEvent):
    """A queued message of a stopped task chain was dropped instead of getting a turn."""

    chain_id: str
    message_id: str
    sender: str | None
    reason: str


class ChainResumedEvent(AgentEvent):
    """A person let a stopped task chain go on (`/continue`, or by writing into it)."""

    stop: ChainStop
    delivered: int
    grace: int = 0


#: The most characters of a call's arguments the person's notice quotes.
ARGS_CHARS = 400


class PendingCall(BaseModel):
    """A tool call parked until the person answers: what a person reads to decide."""

    model_config = ConfigDict(defer_build=True)

    id: str
    """What the person's `/approve ID` names: short, counted per member."""
    kind: Literal["approval", "question"] = "approval"
    """A call waiting for a yes, or an `ask_person` question waiting for an answer."""
    tool: str
    args: dict[str, Any] | str | None = None
    tool_call_id: str
    rule: str
    """The approval rule that parked it (`workspace.write*`)."""
    asked_by: str | None = None
    """Who the parked turn was working for (its message's sender)."""
    chain_id: str | None = None
    reviewer: str | None = None
    """The member asked to answer besides the person (its rule's reviewer, located)."""
    timeout: float | None = None
    """Seconds the call waits before `on_timeout` (its rule's), counted from `asked_at`."""
    on_timeout: Literal["deny", "remind"] = "deny"
    asked_at: float | None = None
    """When it was asked (seconds since the epoch): a resumed team's timeout goes on from it."""

    def describe(self) -> str:
        """One line a person decides on: the id, the tool and its arguments (the first
        `ARGS_CHARS`), who it works for; a question, with its choices."""
        who = f", for {self.asked_by}" if self.asked_by else ""
        if self.kind == "question" and isinstance(self.args, dict):
            choices = self.args.get("choices")
            among = f" (one of: {', '.join(map(str, choices))})" if choices else ""
            return f"  [{self.id}] asks: {self.args.get('question')}{among}{who}"
        args = (
            self.args if isinstance(self.args, str) else json.dumps(self.args, ensure_ascii=False)
        )
        args = args if len(args) <= ARGS_CHARS else args[:ARGS_CHARS] + "…"
        line = f"  [{self.id}] {self.tool}({args}) under rule {self.rule!r}{who}"
        if self.reviewer:
            line += f"; {self.reviewer} is asked to review it"
        if self.timeout is not None:
            then = "denied" if self.on_timeout == "deny" else "you are reminded"
            line += f"; {then} if unanswered in {self.timeout:g} s"
        return line


class ToolApprovalAskedEvent(AgentEvent):
    """A member's run parked on tool calls that wait for the person's yes.

    `message` is the turn's message: the run goes on as its turn when every call is answered
    (a resumed team parks it again from here).
    """

    calls: list[PendingCall]
    message: SerializeAsAny[Message]


class ToolApprovalHeldEvent(AgentEvent):
    """A message that reached a member whose run is parked, held until the run goes on (a
    resumed team holds it again while the park is still pending)."""

    message: SerializeAsAny[Message]


class ToolApprovalAnsweredEvent(AgentEvent):
    """A parked call was approved, denied, or dropped (its chain stopped, its run gone)."""

    call_id: str
    verdict: Literal["approved", "denied", "answered", "dropped"]
    note: str = ""
    by: str | None = None
