"""Resume: a team brought back from its record (see docs/resume.md).

    from retinue.resume import resume_team
    from retinue.store import open_store

    team = resume_team(open_store("team.sqlite"), team_id)   # a ResumedTeam
    team.send("Where were we?")

Its own layer, between `agent` and `testing`: it reads the record (`retinue.store`) and
starts actors through the runtime, giving each a `Resumption`.
"""

from retinue.resume.record import RecordedActor, ResumeError, TeamRecord, read_team_record
from retinue.resume.team import ResumedTeam, TeamResumedEvent, resume_team

__all__ = [
    "RecordedActor",
    "ResumeError",
    "ResumedTeam",
    "TeamRecord",
    "TeamResumedEvent",
    "read_team_record",
    "resume_team",
]
