"""Text an agent wrote, cleaned before a card keeps it for other agents to read.

A name, a title or a note one model writes ends up in other models' prompts (a context
summary, a tool's answer). `clean_line` makes it one line, so nothing in it can start a line
of its own, such as a forged context-update marker; `clean_block` keeps its lines. Both
remove control characters and invisible format characters (bidirectional overrides,
zero-width characters), so what a reader sees is what was written. Neither escapes message
fences: what is shown to a model still goes through `neutralize`.
"""

from __future__ import annotations

import re

_INVISIBLE = re.compile(
    r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]"
)
_WHITESPACE = re.compile(r"\s+")
_MANY_BLANK_LINES = re.compile(r"\n{3,}")


def clean_line(text: str) -> str:
    """`text` as one line: invisible characters gone, whitespace runs folded to a space."""
    return _WHITESPACE.sub(" ", _INVISIBLE.sub("", text)).strip()


def clean_block(text: str) -> str:
    """`text` as a block of lines: invisible characters gone, every line break a newline,
    no line ending in whitespace, at most one blank line in a row."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = _INVISIBLE.sub("", text.replace("\u2028", "\n").replace("\u2029", "\n"))
    lines = "\n".join(line.rstrip() for line in text.split("\n"))
    return _MANY_BLANK_LINES.sub("\n\n", lines).strip()
