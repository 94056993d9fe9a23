"""What `workspace_list` answers: the entries a pattern matched, as a model reads them."""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from typing import Literal

from retinue_workspace.paths import DEFAULT_PATTERN
from retinue_workspace.text import human_size

MAX_SCAN_ENTRIES = 100_000
"""A listing stops looking after this many entries, however large the tree."""

EntryKind = Literal["file", "directory", "link", "special"]


@dataclass(frozen=True)
class Entry:
    """One thing in a listing: its path in the workspace, what it is, and its size."""

    path: str
    kind: EntryKind
    size: int | None = None

    def __str__(self) -> str:
        if self.kind == "directory":
            return f"{self.path}/"
        if self.kind == "link":
            return f"{self.path} (symbolic link)"
        if self.kind == "special":
            return f"{self.path} (not a regular file)"
        return f"{self.path} ({human_size(self.size or 0)})"


@dataclass(frozen=True)
class Listing:
    """What matched a pattern: the first entries by path, how many matched in all."""

    pattern: str
    entries: tuple[Entry, ...]
    total: int
    scan_cut: bool = False
    """The tree was larger than `MAX_SCAN_ENTRIES`; matches beyond it were not looked for."""

    def __str__(self) -> str:
        if not self.total:
            if self.pattern == DEFAULT_PATTERN and not self.scan_cut:
                return "The workspace is empty."
            lines = [f"Nothing in the workspace matches {self.pattern!r}."]
        else:
            noun = "entry" if self.total == 1 else "entries"
            verb = "matches" if self.total == 1 else "match"
            lines = [f"{self.total} {noun} {verb} {self.pattern!r}:"]
            lines.extend(str(entry) for entry in self.entries)
            if self.total > len(self.entries):
                lines.append(
                    f"... and {self.total - len(self.entries)} more; "
                    "give a narrower pattern to see them."
                )
        if self.scan_cut:
            lines.append(
                f"(The search stopped after {MAX_SCAN_ENTRIES:,} entries; give a narrower pattern.)"
            )
        return "\n".join(lines)


def entry_at(path: str, name: str, dir_fd: int) -> Entry:
    """The entry for `name` in the directory open as `dir_fd`, links not followed."""
    try:
        info = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except OSError:
        return Entry(path, "special")
    if stat.S_ISREG(info.st_mode):
        return Entry(path, "file", info.st_size)
    if stat.S_ISDIR(info.st_mode):
        return Entry(path, "directory")
    if stat.S_ISLNK(info.st_mode):
        return Entry(path, "link")
    return Entry(path, "special")
