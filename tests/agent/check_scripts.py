"""Checks and scripted models for the output-check tests, importable by path
(`check_scripts:name`)."""

from __future__ import annotations

from pydantic_ai import ModelRetry
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse
from pydantic_ai.models.function import AgentInfo
from retinue import AgentMessage, Outgoing
from retinue.testing import incoming, run_messages, send

COMPLAINT = "Answer the person with a verdict only: start with VERDICT:"


def verdict_only(message: Outgoing) -> str | None:
    """The QA may answer the person only with a verdict."""
    if message.recipient == "@Human" and not message.content.startswith("VERDICT:"):
        return COMPLAINT
    return None


async def no_shouting(message: Outgoing) -> None:
    """An async check that complains by raising pydantic-ai's `ModelRetry`."""
    if message.content.isupper():
        raise ModelRetry("No shouting.")


def broken(message: Outgoing) -> str | None:
    """A check with a bug of its own."""
    raise KeyError("verdicts")


def answers_a_number(message: Outgoing) -> object:
    """A check that returns what no check returns."""
    return 1


def knows_its_turn(message: Outgoing) -> str | None:
    """Passes only a message that names who sent it and the request it answers."""
    got = message.incoming
    asked = got.content if isinstance(got, AgentMessage) else None
    if (message.sender, message.role, asked) != ("@QA", "QA", "review it"):
        return f"wrong context: {message.sender} {message.role} {asked!r}"
    return None


NOT_A_FUNCTION = 42


def _retried(messages: list[ModelMessage], info: AgentInfo) -> bool:
    """Whether this request sends the model back within its run."""
    return any(isinstance(m, ModelResponse) for m in run_messages(messages, info))


def wrong_then_right(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Answers the person with prose first; sent back, with a verdict."""
    if _retried(messages, info):
        return send(info, ("@Human", "response", "VERDICT: pass"))
    return send(info, ("@Human", "response", "Looks fine to me."))


def always_wrong(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Never answers with a verdict."""
    return send(info, ("@Human", "response", "Looks fine to me."))


def two_messages(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """A note to the Dev (allowed) and prose to the person (refused), then both right."""
    if _retried(messages, info):
        return send(info, ("@Dev", "notification", "thanks"), ("@Human", "response", "VERDICT: ok"))
    return send(info, ("@Dev", "notification", "thanks"), ("@Human", "response", "ok"))


def shouts_then_speaks(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    if _retried(messages, info):
        return send(info, ("@Human", "response", "VERDICT: fine"))
    return send(info, ("@Human", "response", "VERDICT: FINE"))


def delegates_review(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Asks the QA for a review; passes on what comes back, a failure included."""
    got = incoming(messages)
    if got.sender == "@Human":
        return send(info, ("@QA", "request", "review it"))
    return send(info, ("@Human", "response", f"{got.intent}: {got.content}"))


def retry_texts(request: list[ModelMessage]) -> list[str]:
    """What the latest request of `request` sent the model back with."""
    last = request[-1]
    assert isinstance(last, ModelRequest)
    return [str(getattr(part, "content", "")) for part in last.parts]


def silent(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Reads what it gets and sends nothing."""
    return send(info)
