"""Watching a team from a terminal, a log or a script.

- `Console`: an `EventSubscriber` printing the team's flow as it happens (on `rich`), with a
  live line of who is working; what `retinue run` and `retinue chat` show.
- `JsonTranscript`: the same record as JSON lines, for scripts (`retinue run --json`).
- `TeamTracker`: what both know from the record: members, runs in flight, usage, commands.
- `usage_table`: the per-agent usage table `/usage` prints.
"""

from retinue.console.flow import Console
from retinue.console.jsonl import JsonTranscript, record_to_json
from retinue.console.tracker import TeamTracker
from retinue.console.usage import usage_table

__all__ = ["Console", "JsonTranscript", "TeamTracker", "record_to_json", "usage_table"]
