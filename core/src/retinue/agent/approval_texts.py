"""What the model reads when a parked call is refused or a question declined (the person
reads `PendingCall.describe`)."""

from __future__ import annotations

from pydantic_ai.tools import ToolDenied

from retinue.agent.events import PendingCall, ToolApprovalAnsweredEvent

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
