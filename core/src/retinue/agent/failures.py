"""Failure notices: how a failure reaches the agent waiting for the work, and the person.

A turn that fails for good (its model raised, its output never validated, its run timed out,
its handler raised), a hired member that could not start, and a request that found its
recipient gone all end the same way: whoever waits for the work gets a `FailureNotice` in the
same chain, and the person gets one line. The `ErrorMessage` to the orchestrator stays the
record; the notice is the news.

A notice is a kernel-authored message type: a model's output only ever becomes a plain
`AgentMessage`, so no text anyone writes can pass for one. A notice never causes another: a
turn that fails on one, or a hire made while handling one that cannot start, tells the person
only; a notice that finds its recipient gone is dropped; and when work sent while handling
one fails again, that notice joins the agent's history instead of starting a turn.
"""

from __future__ import annotations

import json
import re
from collections import OrderedDict
from typing import Any, Literal, NamedTuple

from retinue.actors.address import ActorAddress
from retinue.actors.errors import one_line
from retinue.actors.messages import CancelMessage, Message
from retinue.agent.incoming import render_failure
from retinue.agent.messages import AgentMessage, Intent
from retinue.llm.framing import neutralize

FailureKind = Literal["turn", "start", "delivery"]
"""What failed: a member's turn, a member's start (a hire), or the delivery of a message."""

#: The intents whose sender waits for the outcome (an answer, or the work being done).
AWAITED_INTENTS = frozenset({"request", "instruction"})


class FailureNotice(AgentMessage):
    """Kernel-authored news of a failure, sent in the chain of the work that failed.

    `member` names who failed (the member whose turn failed, who could not start, or who
    could not be reached); it is also the sender when that member has an address, so the
    receiving model reads the notice as coming from it. `content` is the one line a person
    reads; an agent's model is shown `render_failure_notice` instead. `failed_parent_id` is
    the message the requester was handling when it sent the failed one: when that was a
    notice too, the requester gets no new turn for this one (no loop of notices).
    """

    failure: FailureKind
    member: str
    reason: str
    failed_message_id: str | None = None
    failed_parent_id: str | None = None


def awaits_answer(message: Message) -> bool:
    """Whether the sender of `message` waits on its outcome, and so must hear of a failure.

    An `AgentMessage` says so by its intent (a request or an instruction); a failure notice
    never does (no notice answers a notice). A message of an agent class's own type (a
    custom `receiveMsg_<Type>`) carries work without an intent, so its sender is waiting;
    a cancel is not work.
    """
    if isinstance(message, FailureNotice):
        return False
    if isinstance(message, AgentMessage):
        return message.type in AWAITED_INTENTS
    return not isinstance(message, CancelMessage)


def what_was_sent(message: Message) -> str:
    """`a request`, `an instruction`, `a TriageMessage`: the failed message, as prose."""
    if isinstance(message, FailureNotice):
        return "a failure notice"
    kind = message.type if isinstance(message, AgentMessage) else type(message).__name__
    article = "an" if kind[:1].lower() in "aeiou" else "a"
    return f"{article} {kind}"


def sender_name(message: Message) -> str:
    """Who sent `message`, for a person to read."""
    return message.sender.name if message.sender is not None else "code outside the team"


def turn_failed_line(member: str, message: Message, reason: str) -> str:
    """The one line for a turn that failed."""
    return f"{member} failed on {what_was_sent(message)} from {sender_name(message)}: {reason}"


def start_failed_line(member: str, reason: str, hired_by: str | None = None) -> str:
    """The one line for a member that could not start."""
    by = f" (hired by {hired_by})" if hired_by is not None else ""
    return f"{member} could not start{by}: {reason}"


def delivery_failed_line(message: Message, recipient: str) -> str:
    """The one line for a message whose recipient had stopped."""
    return (
        f"{what_was_sent(message).capitalize()} from {sender_name(message)} to {recipient} "
        f"was not delivered: {recipient} is no longer running"
    )


def delivery_notice(
    message: Message, recipient: ActorAddress, to: ActorAddress, intent: Intent = "response"
) -> FailureNotice:
    """The notice `to` gets for `message`, which found `recipient` gone: from that member.

    Built whole (ids, chain, sender) because it is made on whichever thread found the dead
    letter, not by an actor stamping its own send. Of intent `notification` when nobody
    waited on `message` (an answer whose requester left): the sender is told, with no turn.
    """
    return FailureNotice(
        failure="delivery",
        member=recipient.name,
        reason=f"{recipient.name} is no longer running",
        failed_message_id=message.id,
        failed_parent_id=message.parent_id,
        content=delivery_failed_line(message, recipient.name),
        type=intent,
        sender=recipient,
        recipient=to,
        team_id=to.team_id,
        parent_id=message.id,
        chain_id=message.chain_id,
    )


#: A recipient a kernel line shows as written: a member's or a role's name, nothing more.
_PLAIN_NAME = re.compile(r"@?[\w.-]{1,64}")


def shown_recipient(recipient: str) -> str:
    """A recipient a model wrote, as a kernel line shows it: bare when it is a plain name,
    else in JSON quotes on one line and cut short, so it cannot pass for the kernel's words."""
    text = recipient.strip()
    if _PLAIN_NAME.fullmatch(text):
        return text
    cut = text if len(text) <= 64 else text[:63] + "…"
    return one_line(neutralize(json.dumps(cut, ensure_ascii=False)))


def undelivered_note(recipient: str, reason: str) -> str:
    """The line a sender's model reads on its next turn: `Not delivered to @Nobody: no such
    member.` (`recipient` as `shown_recipient` gives it)."""
    return f"Not delivered to {recipient}: {reason}."


def undelivered_line(sender: str, recipient: str, reason: str) -> str:
    """The person's line for a message that could go nowhere."""
    return f"A message from {sender} to {recipient} was not delivered: {reason}"


def render_failure_notice(notice: FailureNotice) -> str:
    """What an agent's model is shown for a notice: from the member, clearly not its answer.

    The same shape as an ordinary message (a header line, then the body in the kernel's
    fence), so a model and `retinue.testing.incoming` read who it is about; the intent word
    is `failure`, which no message a model writes can carry. The reason may quote what a
    model or a tool wrote, so it stays inside the fence.
    """
    who = notice.member
    if notice.failure == "turn":
        what = f"{who} failed while working on what you sent and will not answer it."
    elif notice.failure == "start":
        what = f"{who}, a member hired for you, could not start and has left the team."
    else:
        what = f"What you sent to {who} was not delivered: {who} is no longer running."
    body = (
        f"{what} Reason: {notice.reason}\nDecide what to do now: try again, give the work to "
        "another member, or tell whoever waits on you that it cannot be done."
    )
    return render_failure(who, body)


class HireOrigin(NamedTuple):
    """The message an agent was handling when it hired a member: the chain a failure joins."""

    message_id: str | None
    chain_id: str | None
    owes_notice: bool


class FailureMemory:
    """What an agent remembers to answer failures without loops; each part bounded.

    An agent makes one on its first hire or its first notice, so agents that never meet a
    failure pay nothing for it.
    """

    #: How many recent hires, gone members and handled notices are remembered.
    KEEP = 256

    def __init__(self) -> None:
        self._hires: OrderedDict[str, HireOrigin] = OrderedDict()
        self._gone: OrderedDict[str, None] = OrderedDict()
        self._notices: OrderedDict[str, None] = OrderedDict()

    def hired(self, agent_id: str, origin: HireOrigin) -> None:
        """A member was hired while handling `origin`."""
        self._keep(self._hires, agent_id, origin)

    def start_failed(self, agent_id: str) -> HireOrigin | None:
        """A hired member could not start: it is gone; where was it hired (if remembered)?"""
        self._keep(self._gone, agent_id, None)
        return self._hires.pop(agent_id, None)

    def absorbs(self, notice: FailureNotice) -> tuple[bool, bool]:
        """Whether `notice` gets no turn of its own, and whether the person must then be told.

        No turn for the failure of work sent while handling an earlier notice (a turn is how
        a loop would start: retry, fail, retry...), nor for one that only repeats that a
        member is gone (a member that could not start also leaves what was sent to it
        undelivered). The person was told of each failure where it happened, except an
        undelivered message, which they hear of here when its notice gets no turn.
        """
        member = notice.sender
        gone_id = member.agent_id if notice.failure == "delivery" and member else None
        repeat = gone_id is not None and gone_id in self._gone
        if gone_id is not None:
            self._keep(self._gone, gone_id, None)
        born_of_notice = (
            notice.failed_parent_id is not None and notice.failed_parent_id in self._notices
        )
        if not (repeat or born_of_notice):
            self._keep(self._notices, notice.id, None)
            return False, False
        return True, gone_id is not None and not repeat

    def _keep(self, memory: OrderedDict[str, Any], key: str, value: Any) -> None:
        memory[key] = value
        memory.move_to_end(key)
        while len(memory) > self.KEEP:
            memory.popitem(last=False)
