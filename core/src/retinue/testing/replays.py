"""Replays and cassettes in a test: a recorded team, or a team file, answered by a record.

    def test_the_team_file_answers_as_recorded():
        report = play_cassette("team.toml", Path(__file__).parent / "cassettes/plan.jsonl")
        assert report.ok, report.render()

`replay_team` replays a team of a store; `export_cassette` writes a team's exchanges to a
file; `play_cassette` runs a team file against one, offline: no key, no provider.
"""

from __future__ import annotations

from pathlib import Path

from retinue.replay import ReplayReport, replay_team
from retinue.replay.cassette import read_cassette, write_cassette
from retinue.replay.playing import Playback
from retinue.replay.script import read_script
from retinue.replay.team import Tools
from retinue.store import Store
from retinue.teamfile import TeamFile, load_team_file

__all__ = ["ReplayReport", "export_cassette", "play_cassette", "replay_team"]


def export_cassette(store: Store, team_id: str, path: str | Path) -> int:
    """Write team `team_id`'s model exchanges to the cassette `path`; how many it holds."""
    return write_cassette(read_script(store, team_id), path)


def play_cassette(
    team: str | Path | TeamFile,
    cassette: str | Path,
    *,
    lenient: bool = False,
    tools: Tools = "recorded",
    timeout: float = 60.0,
) -> ReplayReport:
    """Start the team file `team`, recording nowhere, and play the cassette on it: the
    person's messages as recorded, every model answer and tool result from the cassette.

    The agents built meanwhile in this process get the cassette's models (a team file's
    members are started before its id is known), so play one cassette at a time. Raises
    `ReplayError` when the cassette is missing or malformed, `TeamFileError` for the file.
    """
    script = read_cassette(cassette)
    spec = team if isinstance(team, TeamFile) else load_team_file(team)
    playback = Playback(script, lenient=lenient, live_tools=tools == "live")
    with playback.installed(None):
        running = spec.start()
        try:
            running.team.subscribe(playback.answers)
            playback.play(running.system, running.orchestrator, script.steps, timeout)
            return playback.report()
        finally:
            running.shutdown()
