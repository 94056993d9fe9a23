"""Run cancellation and the mid-run arrival notice: one predicate, one hook.

The hook is built by the kernel for every agent, never by a card, so an agent with no cards
can still be stopped. A cancel is stamped on arrival with the run then in flight, and only
that run may be interrupted by it: a cancel aimed at a finished run is purged as stale.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Protocol

from pydantic_ai import RunContext
from pydantic_ai.capabilities import AbstractCapability
from pydantic_ai.models import ModelRequestContext

from retinue.actors.messages import CancelMessage, Message
from retinue.agent.messages import AgentMessage
from retinue.llm.errors import RunInterruptedError

STOP_COMMAND = "/stop"


# `/stop` as the first word: `/stop`, `  /stop now`; never `/stopwatch`. Anchored, so a
# long content costs no more than its leading spaces.
_STOP_TEXT = re.compile(rf"\s*{re.escape(STOP_COMMAND)}(?:\s|$)")


def is_cancel(message: object) -> bool:
    """A `CancelMessage`, or `/stop` from a person (or from code); nothing else cancels.

    Words after `/stop` (`/stop now`, `/stop wrong file`) are for people to read; the text
    is still a cancel.
    """
    if isinstance(message, CancelMessage):
        return True
    if isinstance(message, AgentMessage) and _STOP_TEXT.match(message.content) is not None:
        sender = message.sender
        return sender is None or sender.is_user_proxy
    return False


class CancelHost(Protocol):
    """What the hook needs from the agent it guards."""

    def peek_mailbox(self) -> Sequence[Message]:
        """Pending messages, left in place."""
        ...

    def consume_mailbox(self, predicate: Callable[[Message], bool]) -> list[Message]:
        """Remove matching pending messages, one `HandledMessage` each."""
        ...

    def take_cancel_stamp(self, message_id: str) -> str | None:
        """The run id a cancel was stamped with on arrival (forgotten once taken)."""
        ...

    def running_run_id(self) -> str | None:
        """The id of the run in flight, if any."""
        ...

    def answer_stale_cancel(self, message: Message) -> None:
        """Tell the cancel's sender that the run it aimed at had already ended."""
        ...

    def offers_mailbox_tool(self) -> bool:
        """Whether the model can read its mailbox mid-run."""
        ...


def render_arrival_notice(messages: Sequence[AgentMessage], can_read: bool) -> str:
    """The one notice per run that tells the model mail arrived while it worked."""
    who = ", ".join(f"{m.sender.name if m.sender else '@Operator'} ({m.type})" for m in messages)
    count = len(messages)
    plural = "message" if count == 1 else "messages"
    then = (
        "Call read_mailbox to read them now, or they arrive as their own turn after this one."
        if can_read
        else "They arrive as their own turn after this one."
    )
    return f"[retinue] {count} new {plural} arrived while you were working: {who}. {then}"


def purge_cancels(host: CancelHost, run_id: str | None) -> bool:
    """Remove every pending cancel; True when one was aimed at `run_id`, the rest are stale."""
    live = False
    for message in host.consume_mailbox(is_cancel):
        if run_id is not None and host.take_cancel_stamp(message.id) == run_id:
            live = True
        else:
            host.answer_stale_cancel(message)
    return live


class MailboxCapability(AbstractCapability[Any]):
    """Before every model request: honour a cancel aimed at this run, announce new mail."""

    def __init__(self, host: CancelHost) -> None:
        self._host = host
        self._announced: set[str] = set()

    def start_run(self, already_queued: Iterable[str]) -> None:
        """Reset the run-local tracking: mail queued before the run is not news."""
        self._announced = set(already_queued)

    def end_run(self) -> None:
        """Forget the run; its announcements die with it."""
        self._announced = set()

    async def before_model_request(
        self, ctx: RunContext[Any], request_context: ModelRequestContext
    ) -> ModelRequestContext:
        host = self._host
        pending = host.peek_mailbox()
        if any(is_cancel(m) for m in pending):
            run_id = host.running_run_id()
            if purge_cancels(host, run_id):
                raise RunInterruptedError(run_id)
        fresh = [
            m
            for m in pending
            if isinstance(m, AgentMessage) and not is_cancel(m) and m.id not in self._announced
        ]
        if fresh:
            self._announced.update(m.id for m in fresh)
            ctx.enqueue(render_arrival_notice(fresh, host.offers_mailbox_tool()), priority="asap")
        return request_context
