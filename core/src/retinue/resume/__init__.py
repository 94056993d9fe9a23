"""Resume: a team brought back from its record (see docs/resume.md).

    from retinue.resume import resume_team
    from retinue.store import open_store

    team = resume_team(open_store("team.sqlite"), team_id)   # a ResumedTeam
    team.send("Where were we?")
    fork = fork_team(store, team_id, at=42)   # a new team, from the record at position 42

Its own layer, between `agent` and `testing`: it reads the record (`retinue.store`) and
starts actors through the runtime, giving each a `Resumption`.
"""

from retinue.resume.fork import fork_team
from retinue.resume.lineage import FORKED_FROM, TeamForkedEvent, fork_origin
from retinue.resume.record import RecordedActor, ResumeError, TeamRecord, read_team_record
from retinue.resume.team import ResumedTeam, TeamResumedEvent, resume_team

__all__ = [
    "FORKED_FROM",
    "RecordedActor",
    "ResumeError",
    "ResumedTeam",
    "TeamForkedEvent",
    "TeamRecord",
    "TeamResumedEvent",
    "fork_origin",
    "fork_team",
    "read_team_record",
    "resume_team",
]
