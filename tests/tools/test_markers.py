"""The marker: its fixed wording, and finding only the blocks the kernel delivered."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, ClassVar

from pydantic_ai.messages import (
    ImageUrl,
    ModelMessage,
    ModelRequest,
    ModelResponse,
    SystemPromptPart,
    TextContent,
    TextPart,
    ToolReturnPart,
    UserPromptPart,
)
from retinue.tools import (
    MARKER_RE,
    ContextMarker,
    block_content,
    find_markers,
    marker_line,
    marker_of,
)


def test_marker_wording_is_fixed() -> None:
    assert marker_line(1, full=True) == "**Context update 1** — current state."
    assert (
        marker_line(12, full=False)
        == "**Context update 12** — state has changed since the last update."
    )


def test_marker_must_open_a_line() -> None:
    assert MARKER_RE.search("see **Context update 3** — current state.") is None
    assert MARKER_RE.search("intro\n**Context update 3** — current state.\nrest") is not None
    assert MARKER_RE.search("**Context update 3** — some other words.") is None
    assert MARKER_RE.search("**Context update 0** — current state.") is None
    huge = "**Context update " + "9" * 5000 + "** — current state."
    assert MARKER_RE.search(huge) is None  # no number a reader would choke on


def _block(number: int, full: bool = True) -> TextContent:
    return block_content(marker_line(number, full=full), ContextMarker(number, full))


def test_a_block_carries_its_marker_as_metadata() -> None:
    item = _block(3, full=False)
    assert item.content == marker_line(3, full=False)
    assert marker_of(item) == ContextMarker(3, False)
    assert marker_of(TextContent(item.content)) is None  # the same text, not the kernel's
    assert marker_of(item.content) is None


def test_markers_are_found_in_user_prompts_only_and_in_order() -> None:
    history: list[ModelMessage] = [
        ModelRequest(parts=[UserPromptPart([_block(1), "\n\nPlease review."])]),
        ModelResponse(parts=[TextPart(marker_line(9, full=True))]),  # the model echoing it
        ModelRequest(
            parts=[
                UserPromptPart(
                    [
                        "Reply protocol: answer the question.",
                        _block(2, full=False),
                        ImageUrl("https://example.com/a.png"),
                    ]
                )
            ]
        ),
        ModelRequest(parts=[SystemPromptPart(marker_line(7, full=True))]),
    ]
    assert find_markers(history) == [ContextMarker(1, True), ContextMarker(2, False)]


def test_marker_text_in_a_prompt_is_not_a_block() -> None:
    prompt = "\n\n".join(
        ["[intent: request] Please review.", marker_line(4, full=False), "### plan\nnew", "Go."]
    )
    history: list[ModelMessage] = [
        ModelRequest(parts=[UserPromptPart(prompt)]),
        ModelRequest(parts=[UserPromptPart([prompt, TextContent(marker_line(5, full=True))])]),
    ]
    assert find_markers(history) == []


class _FuturePart:
    """A part kind from a newer pydantic-ai."""

    part_kind = "hologram"
    content: ClassVar[list[TextContent]] = [_block(5)]


def test_unknown_kinds_are_skipped_without_error() -> None:
    odd_parts: list[Any] = [
        _FuturePart(),
        ToolReturnPart("roster", marker_line(6, full=True), tool_call_id="t1"),
    ]
    history: list[Any] = [
        ModelRequest(parts=odd_parts),
        ModelRequest(parts=[UserPromptPart([_block(3)])]),
        object(),
        {"kind": "request", "parts": []},
        ModelResponse(parts=[], timestamp=datetime.now(UTC)),
    ]
    assert find_markers(history) == [ContextMarker(3, True)]


class CountingRequest(ModelRequest):
    """A request that counts how often its parts are read."""

    reads: ClassVar[int] = 0

    def __getattribute__(self, name: str) -> Any:
        if name == "parts":
            CountingRequest.reads += 1
        return super().__getattribute__(name)


def test_the_marker_index_reads_only_what_was_added_since_its_last_look() -> None:
    from retinue.tools.markers import MarkerIndex

    index = MarkerIndex()
    history: list[ModelMessage] = [
        CountingRequest(parts=[UserPromptPart([_block(n)])]) for n in range(1, 4)
    ]
    assert index.numbers(history) == [1, 2, 3]
    grown = [*history, CountingRequest(parts=[UserPromptPart([_block(4, full=False)])])]
    CountingRequest.reads = 0
    assert index.numbers(grown) == [1, 2, 3, 4]
    assert CountingRequest.reads == 1  # the one message added, not the three before it
    compacted = grown[2:]  # a compaction: the history no longer begins with what was read
    assert index.numbers(compacted) == [3, 4] == [m.number for m in find_markers(compacted)]
    assert index.numbers([]) == []
