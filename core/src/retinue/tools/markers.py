"""The marker of a context-update block, and finding the blocks the kernel delivered.

The marker is the stable handle on a block: the engine reconciles its baselines against the
blocks still visible in the history. The model reads it as the block's opening line, but the
kernel recognises a block only by the metadata it put on the `TextContent` item that carries
it (metadata is never sent to the model and no message content can set it). A line of text
that looks like a marker, in anyone's content or in a model's answer, is just text: it can
neither move the block counter nor, with an absurd number, break the agent's later turns.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pydantic_ai.messages import ModelMessage, TextContent

CURRENT_STATE = "current state."
"""Suffix of a full snapshot: every section is complete."""
STATE_CHANGED = "state has changed since the last update."
"""Suffix of a delta block: sections say what changed since the previous block."""

MARKER_RE = re.compile(
    r"^\*\*Context update (?P<number>[1-9][0-9]{0,17})\*\* — "
    r"(?P<suffix>current state\.|state has changed since the last update\.)[ \t\r]*$",
    re.MULTILINE,
)
"""Matches a marker line, for people styling a transcript; the kernel never trusts text."""

MARKER_KEY = "retinue_context_update"
"""The `TextContent.metadata` key under which the kernel records a block's number and kind."""

_MAX_NUMBER = 10**18


@dataclass(frozen=True, slots=True)
class ContextMarker:
    """One delivered block: its number and whether it was a full snapshot."""

    number: int
    full: bool


def marker_line(number: int, *, full: bool) -> str:
    """The opening line of block `number`, as the model reads it."""
    return f"**Context update {number}** — {CURRENT_STATE if full else STATE_CHANGED}"


def block_content(text: str, marker: ContextMarker) -> TextContent:
    """The prompt item that delivers a block: its text for the model, its marker as metadata.

    A full snapshot's text is interned: every member started together gets the same
    snapshot (the whole roster, in a large team), and keeps one shared copy of it.
    """
    from pydantic_ai.messages import TextContent

    return TextContent(
        content=sys.intern(text) if marker.full else text,
        metadata={MARKER_KEY: {"number": marker.number, "full": marker.full}},
    )


def marker_of(item: object) -> ContextMarker | None:
    """The marker the kernel put on a prompt item, or None; never raises.

    Anything but a well-formed record (a positive int and a bool, as written by
    `block_content`, or read back from a stored history) is ignored, never an error.
    """
    from pydantic_ai.messages import TextContent

    if not isinstance(item, TextContent) or not isinstance(item.metadata, dict):
        return None
    record = item.metadata.get(MARKER_KEY)
    if not isinstance(record, dict):
        return None
    number, full = record.get("number"), record.get("full")
    if type(number) is not int or not 0 < number < _MAX_NUMBER or type(full) is not bool:
        return None
    return ContextMarker(number, full)


def find_markers(history: Iterable[ModelMessage]) -> list[ContextMarker]:
    """Every block the kernel delivered in `history`, in order.

    Blocks are delivered as user-prompt items, so only the content items of user-prompt parts
    of requests are read. Messages, parts and items of kinds this code does not know are
    skipped, never an error.
    """
    found: list[ContextMarker] = []
    for item in _prompt_items(history):
        marker = marker_of(item)
        if marker is not None:
            found.append(marker)
    return found


class MarkerIndex:
    """The block numbers visible in one agent's history, kept up to date turn after turn.

    A history only grows between two turns (a compaction, a clear or a restore replaces it),
    so the index remembers the messages it read last time and reads only what follows
    them: a turn costs the messages added since the last, not the whole history. Whether
    the history still begins with what was read is one list comparison (by identity first,
    at C speed); when it does not, the history is read again from the start.
    """

    __slots__ = ("_numbers", "_read")

    def __init__(self) -> None:
        self._read: list[ModelMessage] = []
        self._numbers: list[int] = []

    def numbers(self, history: Sequence[ModelMessage]) -> list[int]:
        """The numbers of the blocks in `history`, in order (a new list)."""
        read = self._read
        known = len(read)
        if known and (len(history) < known or list(history[:known]) != read):
            read, known = [], 0
            self._numbers = []
        fresh = history[known:]
        if fresh or not known:
            self._numbers.extend(marker.number for marker in find_markers(fresh))
            self._read = [*read, *fresh]
        return list(self._numbers)


def _prompt_items(history: Iterable[object]) -> Iterator[object]:
    from pydantic_ai.messages import ModelRequest, UserPromptPart

    for message in history:
        if not isinstance(message, ModelRequest):
            continue
        for part in message.parts:
            if isinstance(part, UserPromptPart) and not isinstance(part.content, str):
                yield from part.content
