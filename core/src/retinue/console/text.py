"""Text from the team, made safe and short for a terminal.

Message contents, tool arguments and error texts come from models, tools and plugins: any of
them may carry a terminal escape or a megabyte of text. Everything the console prints passes
through here first.
"""

from __future__ import annotations

#: Control characters other than newline and tab: a terminal escape among them is shown as `?`.
_CONTROLS = {code: "?" for code in [*range(0x20), *range(0x7F, 0xA0)] if chr(code) not in "\n\t"}


def clean(text: str) -> str:
    """`text` with every control character but newline and tab replaced by `?`."""
    return text.translate(_CONTROLS)


def shorten(text: str, limit: int) -> str:
    """One line of at most `limit` characters: whitespace runs collapsed, the rest cut to `…`."""
    flat = " ".join(text[: limit * 4].split())  # never split megabytes to show a line
    flat = clean(flat)
    return flat if len(flat) <= limit else flat[: max(limit - 1, 0)] + "…"
