"""`follow`: a scripted model that does what the message it handles tells it to.

A test of a plugin mostly needs an agent to call a tool, or to send a message, at the right
moment. Writing a model function for each test hides the scenario in another file; `follow`
lets the test write it into the message instead, one directive a line::

    call <tool> <json arguments>        call a function tool (several: one after another)
    send <recipient> <intent>: <text>   put this message in the turn's output

Each `call` is made once, in order, and the run ends with the `send`s (none: an empty
output). Since a sent text may itself hold a directive, one message scripts a whole exchange:
`send Developer request: send @Manager response: done` hires a Developer, who answers.
Lines that are no directive are ignored, so a directive may sit inside ordinary text.

An agent runs it with `ModelConfig(provider="function", model=FOLLOW)`; it answers through
the run's output tool, so it suits agents whose output is `StructuredOutput` (`BaseAgent`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models.function import AgentInfo

from retinue.testing.scripted import call_tool, incoming, run_messages, send, tool_returns

FOLLOW = "retinue.testing.directives:follow"
"""The import path of `follow`, as `ModelConfig.model` names it."""

_CALL = re.compile(r"^call (?P<tool>\w+)(?: (?P<args>\{.*\}))?$")
_SEND = re.compile(r"^send (?P<recipient>\S+) (?P<intent>\w+): (?P<text>.*)$")


class Directives(NamedTuple):
    """What a message asks for: tool calls `(tool, args)` and sends `(recipient, intent, text)`."""

    calls: list[tuple[str, dict[str, Any]]]
    sends: list[tuple[str, str, str]]


def read_directives(text: str) -> Directives:
    """The directives in `text`, in order; raises `ValueError` on a `call` with bad JSON."""
    calls: list[tuple[str, dict[str, Any]]] = []
    sends: list[tuple[str, str, str]] = []
    for raw in text.splitlines():
        line = raw.strip()
        if (found := _CALL.match(line)) is not None:
            try:
                args = json.loads(found["args"] or "{}")
            except json.JSONDecodeError as exc:
                raise ValueError(f"directive {line!r}: the arguments are not JSON: {exc}") from None
            calls.append((found["tool"], args))
        elif (found := _SEND.match(line)) is not None:
            sends.append((found["recipient"], found["intent"], found["text"]))
    return Directives(calls, sends)


def follow(messages: Sequence[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Carry out the directives of the message this run answers (a `FunctionModel` function).

    The next `call` is the first one this run has no tool result for yet; once every call has
    its result, the answer is the `send`s. Only the message's own content is read, never the
    context updates or the reply-protocol line before it.
    """
    calls, sends = read_directives(incoming(messages).content)
    output_tools = {tool.name for tool in info.output_tools}
    answered = [
        p for p in tool_returns(run_messages(messages, info)) if p.tool_name not in output_tools
    ]
    if len(answered) < len(calls):
        tool, args = calls[len(answered)]
        return call_tool(tool, args)
    return send(info, *sends)


def call_directive(tool: str, args: Mapping[str, Any] | None = None) -> str:
    """The line that makes `follow` call `tool` with `args` (written as one-line JSON)."""
    if not re.fullmatch(r"\w+", tool):
        raise ValueError(f"a tool name is one word, got {tool!r}")
    return f"call {tool} {json.dumps(dict(args or {}))}"


def send_directive(recipient: str, intent: str, text: str) -> str:
    """The line that makes `follow` send `text` to `recipient` (a member or a role)."""
    if not recipient or any(c.isspace() for c in recipient):
        raise ValueError(f"a recipient is one word, got {recipient!r}")
    if not re.fullmatch(r"\w+", intent):
        raise ValueError(f"an intent is one word, got {intent!r}")
    if text.splitlines() not in ([], [text]):
        raise ValueError("a directive is one line: the text may not hold a line break")
    return f"send {recipient} {intent}: {text}"


def script(*lines: str, answer: str | None = None) -> str:
    """A message for `follow`: its directive `lines` in order, then, with `answer`, the line
    that sends `answer` to @Human as the response (the end of most tests' turns)."""
    ending = [] if answer is None else [send_directive("@Human", "response", answer)]
    return "\n".join([*lines, *ending])
