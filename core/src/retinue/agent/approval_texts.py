"""The words of approvals: what the person reads of a pending call, and what the model
reads when a call is refused or a question declined."""

from __future__ import annotations

import json

from pydantic_ai.tools import ToolDenied

from retinue.agent.events import PendingCall, ToolApprovalAnsweredEvent

#: The most characters of a call's arguments the person's notice quotes.
ARGS_CHARS = 400

DENIED = "The person denied this tool call: {reason}"
"""What the model reads as a denied call's result."""
DECLINED = "The person declined to answer: {reason}"
"""What the model reads when the person declines a question (`/deny`)."""


def refusal(call: PendingCall, reason: str) -> ToolDenied | str:
    """What the model reads when the person says no: a denied call, a declined question."""
    if call.kind == "question":
        return DECLINED.format(reason=reason)
    return ToolDenied(DENIED.format(reason=reason))


def recorded_answer(call: PendingCall, given: ToolApprovalAnsweredEvent) -> bool | ToolDenied | str:
    """The answer a recorded verdict gave, to give it again after a restart."""
    if given.verdict == "approved":
        return True
    if given.verdict == "answered":
        return given.note
    return refusal(call, given.note)


def describe(call: PendingCall) -> str:
    """One line a person decides on: the id, the tool and its arguments, who it works for."""
    who = f", for {call.asked_by}" if call.asked_by else ""
    if call.kind == "question" and isinstance(call.args, dict):
        choices = call.args.get("choices")
        among = f" (one of: {', '.join(map(str, choices))})" if choices else ""
        return f"  [{call.id}] asks: {call.args.get('question')}{among}{who}"
    args = call.args if isinstance(call.args, str) else json.dumps(call.args, ensure_ascii=False)
    args = args if len(args) <= ARGS_CHARS else args[:ARGS_CHARS] + "…"
    line = f"  [{call.id}] {call.tool}({args}) under rule {call.rule!r}{who}"
    if call.reviewer:
        line += f"; {call.reviewer} is asked to review it"
    if call.timeout is not None:
        then = "denied" if call.on_timeout == "deny" else "you are reminded"
        line += f"; {then} if unanswered in {call.timeout:g} s"
    return line
