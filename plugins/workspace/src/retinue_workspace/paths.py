"""Workspace paths and patterns as written: what is allowed before the file system is asked.

A path is relative to the workspace root, `/`-separated, and never climbs with `..`; an
absolute path is refused rather than reinterpreted, so a model learns the rule instead of
being surprised by where its file went. Patterns follow the same rules and glob syntax:
`*` and `?` stay within one directory, `[abc]` is a class, and a `**` segment spans any
number of directories (`**/*.png` is every PNG, at any depth, the top level included).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from retinue_workspace.errors import WorkspaceError

DEFAULT_PATTERN = "**/*"
"""What `workspace_list` shows when no pattern is given: everything."""

JOURNAL_DIR = ".git"
"""The journal's repository: no path, pattern or listing of the workspace reaches it."""


def parse_path(path: str, *, what: str = "path") -> tuple[str, ...]:
    """The components of `path` (empty for the root itself); `WorkspaceError` when not allowed."""
    if not isinstance(path, str):
        raise WorkspaceError(f"a workspace {what} must be text, not {type(path).__name__}")
    if "\x00" in path:
        raise WorkspaceError(f"a workspace {what} cannot contain a NUL character")
    text = path.strip()
    if text.startswith(("/", "\\")):
        raise WorkspaceError(
            f"{path!r} is an absolute {what}; workspace paths are relative to the workspace, "
            "such as 'notes/todo.md'"
        )
    parts = tuple(part for part in text.split("/") if part not in ("", "."))
    if ".." in parts:
        raise WorkspaceError(
            f"{path!r} uses '..'; a workspace {what} cannot lead out of the workspace"
        )
    if any(is_journal_name(part) for part in parts):
        raise WorkspaceError(
            f"{path!r} names {JOURNAL_DIR}, the workspace's journal; it is not a workspace {what}"
        )
    return parts


def is_journal_name(name: str) -> bool:
    """Whether a path component names a git directory (in any case: some file systems fold it)."""
    return name.lower() == JOURNAL_DIR


def display(parts: tuple[str, ...]) -> str:
    """How a path inside the workspace is shown: `a/b.txt`, or `.` for the root."""
    return "/".join(parts) or "."


@dataclass(frozen=True)
class Pattern:
    """A compiled glob: its text, a matcher over `/`-joined relative paths, how deep it reaches."""

    text: str
    regex: re.Pattern[str]
    depth: int | None
    """How many path components a match has; None when a `**` makes it any number."""

    def matches(self, relative: str) -> bool:
        """Whether the relative path (`a/b.png`) matches."""
        return self.regex.fullmatch(relative) is not None


def compile_pattern(pattern: str) -> Pattern:
    """The glob `pattern` compiled; an empty pattern means everything (`**/*`)."""
    parts = parse_path(pattern if pattern.strip() else DEFAULT_PATTERN, what="pattern")
    if not parts:
        parts = tuple(DEFAULT_PATTERN.split("/"))
    pieces: list[str] = []
    for index, segment in enumerate(parts):
        last = index == len(parts) - 1
        if segment == "**":
            pieces.append(".*" if last else "(?:[^/]+/)*")
        else:
            pieces.append(_segment(segment) + ("" if last else "/"))
    depth = None if "**" in parts else len(parts)
    return Pattern("/".join(parts), re.compile("".join(pieces)), depth)


def is_pattern(text: str) -> bool:
    """Whether `text` holds glob syntax (`*`, `?` or `[`)."""
    return any(char in text for char in "*?[")


_CLASS_SPECIALS = re.compile(r"([\\\[\]&~|^])")


def _segment(segment: str) -> str:
    """One path component of a glob as a regular expression that never crosses a `/`."""
    out: list[str] = []
    index = 0
    while index < len(segment):
        char = segment[index]
        if char == "*":
            while index + 1 < len(segment) and segment[index + 1] == "*":
                index += 1
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[" and (end := _class_end(segment, index)) != -1:
            body = segment[index + 1 : end]
            negate = body[:1] in ("!", "^")
            if negate:
                body = body[1:]
            body = _CLASS_SPECIALS.sub(r"\\\1", body)
            out.append(f"[^/{body}]" if negate else f"[{body}]")
            index = end
        else:
            out.append(re.escape(char))
        index += 1
    return "".join(out)


def _class_end(segment: str, start: int) -> int:
    """The index of the `]` closing the class opened at `start`, or -1 (then `[` is literal)."""
    index = start + 1
    if index < len(segment) and segment[index] in "!^":
        index += 1
    if index < len(segment) and segment[index] == "]":
        index += 1  # a `]` first in the class is a member, not its end
    return segment.find("]", index)
