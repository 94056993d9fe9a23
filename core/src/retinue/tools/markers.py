"""The marker line that opens every context-update block, and finding it in a history.

The marker is the stable handle on a block: the engine reconciles its baselines against the
markers still visible, and a transcript viewer can find, collapse or style blocks by it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pydantic_ai.messages import ModelMessage

CURRENT_STATE = "current state."
"""Suffix of a full snapshot: every section is complete."""
STATE_CHANGED = "state has changed since the last update."
"""Suffix of a delta block: sections say what changed since the previous block."""

MARKER_RE = re.compile(
    r"^\*\*Context update (?P<number>[1-9][0-9]*)\*\* — "
    r"(?P<suffix>current state\.|state has changed since the last update\.)[ \t\r]*$",
    re.MULTILINE,
)
"""Matches a marker line at any line start, so a block folded into a longer prompt counts."""

_QUICK = "**Context update "


@dataclass(frozen=True, slots=True)
class ContextMarker:
    """One marker seen in a history."""

    number: int
    full: bool


def marker_line(number: int, *, full: bool) -> str:
    """The opening line of block `number`."""
    return f"**Context update {number}** — {CURRENT_STATE if full else STATE_CHANGED}"


def parse_markers(text: str) -> list[ContextMarker]:
    """Every marker line in `text`, in order.

    The text is searched for the marker's fixed opening and the pattern tried only there:
    earlier blocks stay in the history and are read on every turn, and a regex scan of a
    large roster block cost more than the rest of the update.
    """
    found: list[ContextMarker] = []
    at = text.find(_QUICK)
    while at != -1:
        if at == 0 or text[at - 1] == "\n":
            m = MARKER_RE.match(text, at)
            if m is not None:
                found.append(ContextMarker(int(m["number"]), m["suffix"] == CURRENT_STATE))
        at = text.find(_QUICK, at + 1)
    return found


def find_markers(history: Iterable[ModelMessage]) -> list[ContextMarker]:
    """Every marker in the user prompts of `history`, in order.

    Blocks are delivered as user-role text, so only user-prompt parts of requests are read;
    a marker the model echoes in a response is not a delivery. Messages, parts and content
    items of kinds this code does not know are skipped, never an error.
    """
    found: list[ContextMarker] = []
    for text in _user_texts(history):
        found.extend(parse_markers(text))
    return found


def _user_texts(history: Iterable[object]) -> Iterator[str]:
    from pydantic_ai.messages import ModelRequest, TextContent, UserPromptPart

    for message in history:
        if not isinstance(message, ModelRequest):
            continue
        for part in message.parts:
            if not isinstance(part, UserPromptPart):
                continue
            content = part.content
            if isinstance(content, str):
                yield content
                continue
            for item in content:
                if isinstance(item, str):
                    yield item
                elif isinstance(item, TextContent):
                    yield item.content
