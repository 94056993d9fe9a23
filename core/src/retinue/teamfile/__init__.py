"""Team files: a team described in TOML, checked as a whole, started in one call.

    from retinue.teamfile import load_team_file
    spec = load_team_file("team.toml")      # TeamFileError: one line per problem
    with spec.start() as running:           # an ActorSystem, the orchestrator, the person
        running.send("Plan the release")    # as the person, to the entry agent
        running.wait_idle(60)

Its own layer, between `agent` and `testing`: it builds on every layer above it and is used
by the `retinue` command. See docs/team-files.md for every key.
"""

from retinue.teamfile.loader import TeamFileError, load_team_file, loads_team_file
from retinue.teamfile.running import RunningTeam, start_team
from retinue.teamfile.schema import TeamFile, TeamSettings, with_model

__all__ = [
    "RunningTeam",
    "TeamFile",
    "TeamFileError",
    "TeamSettings",
    "load_team_file",
    "loads_team_file",
    "start_team",
    "with_model",
]
