"""Which member names the team accepts.

A name is shown to every model on the team (the roster, the line before each message it
sends) and to people, so it must read as what it is: no control characters (a newline would
let a name start a line of its own in a prompt), no invisible or direction-changing format
characters (`@Human` followed by a zero-width space, or a right-to-left override, would look
like someone else), and a length that fits on a roster line.
"""

from __future__ import annotations

import unicodedata

MAX_NAME_CHARS = 64
"""The longest member name (the leading `@` included)."""

# Control, format (zero-width, bidirectional overrides), surrogate, private-use and unassigned
# characters, and the line and paragraph separators.
_REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})


def check_member_name(name: str) -> str:
    """`name` unchanged when a member may carry it; otherwise a `ValueError` naming the problem."""
    if len(name) > MAX_NAME_CHARS:
        raise ValueError(
            f"a member name has at most {MAX_NAME_CHARS} characters; this one has {len(name):,}"
        )
    for char in name:
        if unicodedata.category(char) in _REFUSED_CATEGORIES:
            label = unicodedata.name(char, "a control or unassigned character")
            raise ValueError(
                f"a member name may not hold control, invisible or direction-changing "
                f"characters; this one holds U+{ord(char):04X} ({label})"
            )
    return name
