"""Text from the team, made safe and short for a terminal.

Message contents, tool arguments and error texts come from models, tools and plugins: any of
them may carry a terminal escape or a megabyte of text. Everything the command shows passes
through `clean` first (the console, the answers on stdout, `retinue log`); `--json` output
keeps texts exact, since JSON escapes them itself.
"""

from __future__ import annotations

import unicodedata

#: Format characters that reorder what a terminal shows (bidirectional overrides and
#: isolates): text could read otherwise than it is.
_REORDERING = frozenset("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


class _Escapes(dict[int, int | str]):
    """`str.translate`'s table, filled as characters are met: control characters (but
    newline and tab) and reordering marks become their Python escape (`\\x1b`)."""

    def __missing__(self, code: int) -> int | str:
        char = chr(code)
        escaped = char not in "\n\t" and (unicodedata.category(char) == "Cc" or char in _REORDERING)
        value: int | str = ascii(char)[1:-1] if escaped else code
        if code < 0x3000:  # most text stays in a few pages: remember those, not every glyph
            self[code] = value
        return value


_ESCAPES = _Escapes()


def clean(text: str) -> str:
    """`text` with every control character but newline and tab escaped (`ESC` as `\\x1b`)."""
    return text.translate(_ESCAPES)


def shorten(text: str, limit: int) -> str:
    """One line of at most `limit` characters: whitespace runs collapsed, the rest cut to `…`."""
    flat = " ".join(text[: limit * 4].split())  # never split megabytes to show a line
    flat = clean(flat)
    return flat if len(flat) <= limit else flat[: max(limit - 1, 0)] + "…"
