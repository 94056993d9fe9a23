"""`Panel`: a read-only view of one part of a team's state, folded from its record.

A plugin that keeps state of its own in a team (the planning board, the workspace's files)
offers a panel class through the `retinue_panels` hook, and a frontend (the web view, a
console, a report) shows it without knowing the plugin. A panel is an `EventSubscriber`:
it folds the recorded messages it is given, from a live team (`team.subscribe(panel,
replay=True)`) or read back from a store, and `view()` says what to show as plain data, a
table of text and a note. No markup and no code cross from a plugin to the page.
"""

from __future__ import annotations

from typing import ClassVar

from pydantic import BaseModel, ConfigDict, Field

from retinue.team.subscriber import EventSubscriber

__all__ = ["Panel", "PanelView"]


class PanelView(BaseModel):
    """What a panel shows now: a table (column titles, rows of cells) and a note; all text."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    columns: list[str] = Field(default_factory=list)
    rows: list[list[str]] = Field(default_factory=list)
    note: str = ""
    """One line under the table: where the data comes from, what was left out."""


class Panel(EventSubscriber):
    """Subclass it: set `name`, `title` and `kinds`, fold in `on_message`, answer `view()`.

    `kinds` are the record kinds the panel folds (`PlanningChangedEvent`, `StartMessage`:
    an event's class name, else the message's, as `retinue.store.Record.kind` says): a
    reader of a store reads only those for it. A new instance is made for each team shown,
    and it may be fed from any one thread at a time, while `view()` is read from another:
    keep what `on_message` builds behind a lock, or swap it in whole.
    """

    name: ClassVar[str]
    """Unique across the installed plugins; how a frontend names the panel."""
    title: ClassVar[str]
    """What a person sees as the panel's heading."""
    kinds: ClassVar[frozenset[str]] = frozenset()

    def view(self) -> PanelView:
        """What the panel shows now (called whenever a frontend draws it)."""
        return PanelView()
