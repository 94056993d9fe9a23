"""`WorkspacePanel`: the files of the team's workspace as a frontend shows them.

Folded from the record's `StartMessage`s: each member started with the workspace card
says (in its config) where its files are, and the panel lists those directories, read-only,
through the same sealed `Workspace` the agents use (no link or `..` leads out of it). A
relative `root` is taken from the frontend's working directory, as the agents took it from
theirs: run the viewer where the team ran.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import ClassVar

from retinue import Message, Panel, PanelView, StartMessage

from retinue_workspace.card import WorkspaceTool
from retinue_workspace.files import Workspace
from retinue_workspace.text import human_size

#: The most entries the panel lists (the note says how many more there are).
MAX_ENTRIES = 500


class WorkspacePanel(Panel):
    """Every file of the team's workspace directories, by path, with its size."""

    name: ClassVar[str] = "workspace"
    title: ClassVar[str] = "Workspace files"
    kinds: ClassVar[frozenset[str]] = frozenset({"StartMessage"})

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._roots: dict[Path, None] = {}

    def on_message(self, message: Message) -> None:
        if not isinstance(message, StartMessage) or message.sender is None:
            return
        for item in getattr(message.config, "tools", None) or ():
            card = WorkspaceTool() if item == WorkspaceTool.name else item
            if isinstance(card, WorkspaceTool):
                with self._lock:
                    self._roots[card.directory_for(message.sender)] = None

    def view(self) -> PanelView:
        with self._lock:
            roots = list(self._roots)
        if not roots:
            return PanelView(note="no member of this team has the workspace card")
        rows: list[list[str]] = []
        notes: list[str] = []
        for root in roots:
            if not root.is_dir():
                notes.append(f"{root}: nothing written yet")
                continue
            listing = Workspace(root, max_list_entries=MAX_ENTRIES).listing()
            for entry in listing.entries:
                size = human_size(entry.size) if entry.size is not None else ""
                if entry.kind in ("link", "special"):
                    size = "symbolic link" if entry.kind == "link" else "not a regular file"
                rows.append([entry.path + ("/" if entry.kind == "directory" else ""), size])
            more = listing.total - len(listing.entries)
            notes.append(
                f"{root}: {listing.total} entries" + (f" ({more} not shown)" if more else "")
            )
        return PanelView(columns=["path", "size"], rows=rows, note="; ".join(notes))
