"""Watching a team from a terminal, a log or a script.

- `Console`: an `EventSubscriber` printing the team's flow as it happens (on `rich`), with a
  live line of who is working; what `retinue run` and `retinue chat` show.
- `JsonTranscript`: the same record as JSON lines, for scripts (`retinue run --json`).
- `TeamTracker`: what both know from the record: members, runs in flight, usage, commands.
- `usage_table`: the per-agent usage table `/usage` prints.

Each name loads on first use: `retinue.console.text` (the escaping every shown text passes
through) imports nothing else.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from retinue._lazy import by_name, lazy_exports

if TYPE_CHECKING:
    from retinue.console.flow import Console as Console
    from retinue.console.jsonl import JsonTranscript as JsonTranscript
    from retinue.console.jsonl import record_to_json as record_to_json
    from retinue.console.tracker import TeamTracker as TeamTracker
    from retinue.console.usage import usage_table as usage_table

_LAZY = by_name(
    {
        "retinue.console.flow": ("Console",),
        "retinue.console.jsonl": ("JsonTranscript", "record_to_json"),
        "retinue.console.tracker": ("TeamTracker",),
        "retinue.console.usage": ("usage_table",),
    }
)

__all__ = list(_LAZY)  # mypy reads the `X as X` imports above

if not TYPE_CHECKING:  # hidden from type checkers, so an unknown name is an error there
    __getattr__ = lazy_exports(__name__, _LAZY)
