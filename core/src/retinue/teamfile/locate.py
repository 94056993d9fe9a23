"""Which line of a TOML text defines a key, so a problem can say where to look.

`tomllib` gives values without positions, so this reads the text for table headers and
`key = value` lines (skipping the inside of multi-line strings and values). It is a pointer
for a person, not a parser: a key it cannot place is reported without a line.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

_BASIC_STRING = r'"[^"\\]*(?:\\.[^"\\]*)*"'  # unrolled: linear in a long value
_BARE_OR_QUOTED = rf"(?:[A-Za-z0-9_-]+|{_BASIC_STRING}|'[^']*')"
_DOTTED_KEY = rf"{_BARE_OR_QUOTED}(?:\s*\.\s*{_BARE_OR_QUOTED})*"
_HEADER = re.compile(rf"^\s*(\[\[?)\s*({_DOTTED_KEY})\s*\]\]?\s*(?:#.*)?$")
_KEY_LINE = re.compile(rf"^\s*({_DOTTED_KEY})\s*=")
_PART = re.compile(_BARE_OR_QUOTED)
_STRINGS = re.compile(rf"\"\"\"|'''|{_BASIC_STRING}|'[^']*'")


def _parts(dotted: str) -> tuple[str, ...]:
    return tuple(part.strip("\"'") for part in _PART.findall(dotted))


class KeyLocator:
    """Line numbers (from 1) of the tables and keys of one TOML text."""

    def __init__(self, text: str) -> None:
        self._lines: dict[tuple[str | int, ...], int] = {}
        table: tuple[str | int, ...] = ()
        array_counts: dict[tuple[str | int, ...], int] = {}
        depth = 0  # brackets open in a multi-line value
        in_string: str | None = None  # the quotes of an open multi-line string
        for number, line in enumerate(text.splitlines(), start=1):
            if in_string is not None:
                if line.count(in_string) % 2 == 1:
                    in_string = None
                continue
            if depth == 0:
                header = _HEADER.match(line)
                if header is not None:
                    table = _parts(header.group(2))
                    if header.group(1) == "[[":
                        index = array_counts.get(table, 0)
                        array_counts[table] = index + 1
                        table = (*table, index)
                    self._lines.setdefault(table, number)
                    continue
                key = _KEY_LINE.match(line)
                if key is not None:
                    parts = _parts(key.group(1))
                    for end in range(1, len(parts) + 1):  # `model.provider`: `model` too
                        self._lines.setdefault((*table, *parts[:end]), number)
            code = line.split("#", 1)[0] if "#" in line and '"' not in line else line
            for quote in ('"""', "'''"):
                if code.count(quote) % 2 == 1:
                    in_string = quote
            bare = _STRINGS.sub("", code)
            depth = max(0, depth + bare.count("[") + bare.count("{"))
            depth = max(0, depth - bare.count("]") - bare.count("}"))

    def line_of(self, path: Sequence[str | int]) -> int | None:
        """The line defining `path`, or the nearest enclosing key or table that has one."""
        for end in range(len(path), 0, -1):
            found = self._lines.get(tuple(path[:end]))
            if found is not None:
                return found
        return None
