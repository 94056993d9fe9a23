"""Pure functions over pydantic-ai message lists: cut points, repair, size, transcript.

Every function here looks at parts with `isinstance` and passes any other part through
untouched: pydantic-ai adds part kinds, and a kind this module does not know must never break
a turn.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    RetryPromptPart,
    SystemPromptPart,
    TextContent,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)

SUMMARY_MARKER = "**Summary of the earlier conversation**"
INTERRUPTED_RESULT = "Interrupted before this tool call produced a result."
_MEDIA_CHARS = 1000  # rough size charged for an image or file in the token estimate
_CHARS_PER_TOKEN = 4
_MESSAGE_OVERHEAD_CHARS = 16


def has_user_prompt(message: ModelMessage) -> bool:
    """A request that carries a user prompt: the only place a history may be cut."""
    return isinstance(message, ModelRequest) and any(
        isinstance(part, UserPromptPart) for part in message.parts
    )


def cut_index(messages: Sequence[ModelMessage], keep_last: int) -> int | None:
    """Where a window of about `keep_last` messages starts, or None when nothing can go.

    The cut lands on the first user-prompt request inside the window; when the window holds
    none (one long tool loop), on the last one before it, keeping more rather than cutting a
    tool call from its result.
    """
    start = len(messages) - keep_last
    if start <= 0:
        return None
    for index in range(start, len(messages)):
        if has_user_prompt(messages[index]):
            return index
    for index in range(start - 1, 0, -1):
        if has_user_prompt(messages[index]):
            return index
    return None


def _is_result_part(part: object) -> bool:
    """A part answering a tool call (its call is gone once the history is cut before it)."""
    return isinstance(part, ToolReturnPart | RetryPromptPart) or (
        not isinstance(part, UserPromptPart | SystemPromptPart)
        and isinstance(getattr(part, "tool_call_id", None), str)
    )


def without_results(message: ModelRequest) -> ModelRequest:
    """The request minus tool results and retry prompts, which would be orphans at a cut."""
    parts = [part for part in message.parts if not _is_result_part(part)]
    return message if len(parts) == len(message.parts) else replace(message, parts=parts)


def window(messages: Sequence[ModelMessage], keep_last: int) -> tuple[int, list[ModelMessage]]:
    """Cut to about the last `keep_last` messages; returns how many went and what stays."""
    cut = cut_index(messages, keep_last)
    if cut is None:
        return 0, list(messages)
    head = messages[cut]
    assert isinstance(head, ModelRequest)
    return cut, [without_results(head), *messages[cut + 1 :]]


def _answers_a_call(part: object) -> bool:
    """A tool result or a tool-bound retry prompt: it pairs with a `ToolCallPart` by id."""
    if isinstance(part, ToolReturnPart):
        return True
    return isinstance(part, RetryPromptPart) and part.tool_name is not None


def _interrupted_results(
    calls: Sequence[ToolCallPart], response: ModelResponse
) -> list[ToolReturnPart]:
    """Stand-in results, stamped with the response's time so a repair is deterministic."""
    return [
        ToolReturnPart(
            tool_name=call.tool_name,
            content=INTERRUPTED_RESULT,
            tool_call_id=call.tool_call_id,
            timestamp=response.timestamp,
            outcome="interrupted",
        )
        for call in calls
    ]


def repair(messages: Sequence[ModelMessage]) -> list[ModelMessage]:
    """A history the next run accepts, changed as little as possible.

    An interrupted or failed run can leave a request with no parts (dropped), a response whose
    tool calls never ran (each gets an "interrupted" result in the request that follows, or in
    a new one), or a result whose call is gone (dropped). Messages are never merged, so a
    repaired history replays to the same list. Idempotent; a valid history comes back equal.
    """
    repaired: list[ModelMessage] = []
    called: set[str] = set()
    waiting: list[ToolCallPart] = []  # calls of the latest response still without a result
    caller: ModelResponse | None = None
    for message in messages:
        if not isinstance(message, ModelRequest):
            if isinstance(message, ModelResponse):
                if waiting and caller is not None:
                    repaired.append(ModelRequest(parts=list(_interrupted_results(waiting, caller))))
                caller = message
                waiting = [part for part in message.parts if isinstance(part, ToolCallPart)]
                called.update(call.tool_call_id for call in waiting)
            repaired.append(message)
            continue
        parts = [
            part
            for part in message.parts
            if not (_answers_a_call(part) and getattr(part, "tool_call_id", None) not in called)
        ]
        answered = {getattr(p, "tool_call_id", None) for p in parts if _answers_a_call(p)}
        missing = [call for call in waiting if call.tool_call_id not in answered]
        waiting = []
        if missing and caller is not None:
            last_result = max((i for i, p in enumerate(parts) if _answers_a_call(p)), default=-1)
            parts[last_result + 1 : last_result + 1] = _interrupted_results(missing, caller)
        if parts:
            repaired.append(message if parts == message.parts else replace(message, parts=parts))
    if waiting and caller is not None:
        repaired.append(ModelRequest(parts=list(_interrupted_results(waiting, caller))))
    return repaired


def first_index_of_run(messages: Sequence[ModelMessage], run_id: str) -> int | None:
    """Index of the first message a run added (pydantic-ai stamps each with its run id).

    A run's messages come last, so the search walks back from the end and stops at the
    first message of another run: its cost is the run's messages, not the history's.
    """
    first = None
    for index in range(len(messages) - 1, -1, -1):
        stamped = getattr(messages[index], "run_id", None)
        if stamped == run_id:
            first = index
        elif stamped is not None:
            break
    return first


def _content_chars(content: Any) -> int:
    if content is None:
        return 0
    if isinstance(content, str):
        return len(content)
    if isinstance(content, list | tuple):
        return sum(_item_chars(item) for item in content)
    return len(str(content))


def _item_chars(item: object) -> int:
    if isinstance(item, str):
        return len(item)
    return len(item.content) if isinstance(item, TextContent) else _MEDIA_CHARS


def _part_chars(part: object) -> int:
    chars = _content_chars(getattr(part, "content", None))
    args = getattr(part, "args", None)
    if args is not None:
        chars += len(args) if isinstance(args, str) else len(str(args))
    return chars + len(getattr(part, "tool_name", "") or "")


def estimate_tokens(messages: Sequence[ModelMessage], instructions: str | None = None) -> int:
    """A cheap size estimate (about four characters a token); decides when to compact."""
    chars = len(instructions or "")
    for message in messages:
        chars += message_chars(message)
    return chars // _CHARS_PER_TOKEN


def message_chars(message: ModelMessage) -> int:
    """One message's share of the estimate, in characters."""
    return _MESSAGE_OVERHEAD_CHARS + sum(_part_chars(part) for part in message.parts)


class MessageSizes:
    """Each message's size, remembered by message: a history's estimate costs its new messages.

    A runner asks for the estimate before every model request over a history that mostly
    did not change since the last; messages are not changed in place once a run has made
    them (a changed history is made of new messages), and the newest ones, which a run may
    still be adding to, are measured afresh each time. Sizes of messages no longer asked
    about are forgotten.
    """

    __slots__ = ("_known",)

    FRESH = 2
    """The newest messages of a history, measured every time."""

    def __init__(self) -> None:
        self._known: dict[int, tuple[ModelMessage, int]] = {}

    def estimate(self, messages: Sequence[ModelMessage], instructions: str | None) -> int:
        """`estimate_tokens(messages, instructions)`, from the sizes remembered."""
        settled = len(messages) - self.FRESH
        chars = len(instructions or "")
        known: dict[int, tuple[ModelMessage, int]] = self._known
        seen: dict[int, tuple[ModelMessage, int]] = {}
        for index, message in enumerate(messages):
            if index >= settled:
                chars += message_chars(message)
                continue
            key = id(message)
            found = known.get(key)
            if found is None or found[0] is not message:
                found = (message, message_chars(message))
            seen[key] = found
            chars += found[1]
        self._known = seen  # what this history holds: the rest is forgotten
        return chars // _CHARS_PER_TOKEN


def _render_content(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list | tuple):
        return " ".join(_render_item(item) for item in content)
    return str(content)


def _render_item(item: object) -> str:
    if isinstance(item, str):
        return item
    return item.content if isinstance(item, TextContent) else f"[{type(item).__name__}]"


def _render_args(args: Any) -> str:
    if args is None or isinstance(args, str):
        return args or ""
    try:
        return json.dumps(args, default=str)
    except (TypeError, ValueError):
        return str(args)


def render_transcript(messages: Sequence[ModelMessage], max_part_chars: int = 4000) -> str:
    """A plain-text transcript for a summariser; unknown part kinds are skipped."""

    def clip(text: str) -> str:
        return text if len(text) <= max_part_chars else text[:max_part_chars] + " [...]"

    lines: list[str] = []
    for message in messages:
        for part in message.parts:
            if isinstance(part, UserPromptPart):
                lines.append(f"User: {clip(_render_content(part.content))}")
            elif isinstance(part, TextPart):
                lines.append(f"Assistant: {clip(part.content)}")
            elif isinstance(part, ToolCallPart):
                lines.append(f"Tool call {part.tool_name}({clip(_render_args(part.args))})")
            elif isinstance(part, ToolReturnPart):
                lines.append(f"Tool result {part.tool_name}: {clip(_render_content(part.content))}")
            # any other part (thinking, native tools, kinds added later) is left out
    return "\n".join(lines)


def joins(last: ModelMessage, message: ModelMessage) -> bool:
    """Whether pydantic-ai, cleaning a history, merges `message` into the request before it.

    The case every turn makes (a run's closing tool result, then the next prompt or an
    operator action): two plain requests whose instructions agree, the second carrying no
    tool result (so the merge keeps the parts' order). Anything else is left to pydantic-ai.
    """
    return (
        isinstance(last, ModelRequest)
        and isinstance(message, ModelRequest)
        and last.metadata is None
        and message.metadata is None
        and last.state == "complete"
        and message.state == "complete"
        and (
            not last.instructions
            or not message.instructions
            or last.instructions == message.instructions
        )
        and not any(_is_result_part(part) for part in message.parts)
    )


def joined(last: ModelRequest, message: ModelRequest) -> ModelRequest:
    """The one request pydantic-ai sends for `last` followed by `message` (see `joins`)."""
    return ModelRequest(
        parts=[*last.parts, *message.parts],
        instructions=last.instructions or message.instructions,
        timestamp=message.timestamp or last.timestamp,
    )


class SentHistory:
    """A history as pydantic-ai sends it (adjacent requests merged), kept up to date run by run.

    pydantic-ai merges adjacent requests every time it cleans a history, on every run and
    request, and its other passes over the history cost per message: a history handed over
    already merged costs it a third fewer messages and no merging. A runner keeps its own
    history as its runs made it (what its events replay); this view is derived from it and
    extended with the messages added since the last run (the history only grows between
    runs; when it was replaced, the view is made again).
    """

    __slots__ = ("_source", "_view")

    def __init__(self) -> None:
        self._source: list[ModelMessage] = []
        self._view: list[ModelMessage] = []

    def of(self, messages: list[ModelMessage]) -> list[ModelMessage]:
        """`messages` merged as pydantic-ai would send them (a new list)."""
        known = len(self._source)
        if known and (len(messages) < known or messages[:known] != self._source):
            self._source, self._view, known = [], [], 0
        view = self._view
        for message in messages[known:]:
            if view and joins(view[-1], message):
                view[-1] = joined(view[-1], message)  # type: ignore[arg-type]
            else:
                view.append(message)
        self._source = list(messages)
        return list(view)
