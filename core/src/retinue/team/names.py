"""Which member names the team accepts.

A name is shown to every model on the team (the roster, the line before each message it
sends) and to people, so it must read as what it is: no control characters (a newline would
let a name start a line of its own in a prompt), no invisible or direction-changing format
characters (`@Human` followed by a zero-width space, or a right-to-left override, would look
like someone else), and a length that fits on a roster line.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable

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


_TRAILING_NUMBER = re.compile(r"\d+$")


class MemberNames:
    """The names a team's members hold now: unique while held, free again once let go.

    A name belongs to a member while it runs; when it stops (fired, or leaving on its own)
    the name is released, so the next member hired for `@Manager` is `@Manager` again, not
    `@Manager2`. A resumed member claims its own name back exactly (`claim_exact`).
    Used by one thread (the orchestrator's), so it takes no lock.

    Each stem remembers the lowest number that may be free (every number below it is held),
    so hiring a thousandth `@Worker` tries one name, not a thousand; a release lowers it.
    """

    def __init__(self, reserved: Iterable[str] = ()) -> None:
        self._taken: set[str] = set(reserved)
        #: stem -> a number n such that `stem2` ... `stem(n-1)` are all held.
        self._free_from: dict[str, int] = {}

    def __contains__(self, name: object) -> bool:
        return name in self._taken

    def claim(self, wanted: str) -> str:
        """`wanted` if it is free, else the first free `stem2`, `stem3`, ... (checked names)."""
        name = check_member_name(wanted)
        if name in self._taken:
            stem = _TRAILING_NUMBER.sub("", name) or name
            n = self._free_from.get(stem, 2)
            while f"{stem}{n}" in self._taken:
                n += 1
            name = check_member_name(f"{stem}{n}")
            self._free_from[stem] = n + 1
        self._taken.add(name)
        return name

    def claim_exact(self, name: str) -> str:
        """`name` itself (a resumed member's own); `ValueError` when someone holds it."""
        check_member_name(name)
        if name in self._taken:
            raise ValueError(f"the name {name} is already held by a member of this team")
        self._taken.add(name)
        return name

    def release(self, name: str) -> None:
        """Free `name` (its member stopped); a name nobody holds is ignored."""
        if name not in self._taken:
            return
        self._taken.discard(name)
        # `name` may be `stem` + n for each split of its trailing digits (a stem of digits
        # alone keeps its own digits); such a stem's first free number is now at most n.
        digits = _TRAILING_NUMBER.search(name)
        if digits is None or not self._free_from:
            return
        for split in range(digits.start(), len(name)):
            stem, number = name[:split], name[split:]
            if number[0] != "0" and (n := int(number)) >= 2 and n < self._free_from.get(stem, 0):
                self._free_from[stem] = n
