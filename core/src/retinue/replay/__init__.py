"""Replay: a recorded team run again offline, every model answer served from its record.

    from retinue.replay import replay_team
    report = replay_team(open_store("team.sqlite"), team_id)
    assert report.ok, report.render()

Its own layer, under `testing`, `resume`, `teamfile` and the command line: it reads the
record (`retinue.store`) and starts actors; its models serve answers through the kernel's
model overrides (`retinue.llm.model_overrides`). See docs/replay.md.
"""

from retinue.replay.report import Difference, ReplayReport, ReplayStoppedError
from retinue.replay.script import Answer, ReplayError, Script, Turn, read_script
from retinue.replay.team import replay_script, replay_team

__all__ = [
    "Answer",
    "Difference",
    "ReplayError",
    "ReplayReport",
    "ReplayStoppedError",
    "Script",
    "Turn",
    "read_script",
    "replay_script",
    "replay_team",
]
