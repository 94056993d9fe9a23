"""Cassettes: a session's exchanges as a committed file, played by a team file offline.

`cassettes/pair.jsonl` was exported from a `retinue run` of tests/cli/teams/pair.toml:
`retinue export TEAM_ID --cassette tests/replay/cassettes/pair.jsonl`. A clean command
line plays it in tests/cli/test_cassette_command.py.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from retinue.replay import ReplayError
from retinue.store import open_store
from retinue.teamfile import load_team_file
from retinue.testing import export_cassette, play_cassette

from tests.cli.conftest import TEAMS

PAIR = TEAMS / "pair.toml"
CASSETTE = Path(__file__).parent / "cassettes" / "pair.jsonl"


def test_the_committed_cassette_plays_the_team_file_offline() -> None:
    pytest.importorskip("retinue_team", reason="the lead hires its helper through retinue-team")
    report = play_cassette(PAIR, CASSETTE)
    assert report.ok, report.render()
    assert (report.turns, report.replayed, report.equal) == (3, 3, 3)
    assert [a.content for a in report.answers] == ["Done: helped with Help with: plan it"]


def test_the_same_session_exports_the_same_file(tmp_path: Path) -> None:
    """Only the header (the recorded team's id) differs: no timestamp, no run id."""
    pytest.importorskip("retinue_team", reason="the lead hires its helper through retinue-team")
    where = tmp_path / "team.sqlite"
    with load_team_file(PAIR).start(store=str(where)) as running:
        running.send("plan it")
        running.wait_idle()
        team_id = running.orchestrator.team_id
    assert team_id is not None
    with open_store(where, create=False) as store:
        assert export_cassette(store, team_id, tmp_path / "again.jsonl") == 3
    again = (tmp_path / "again.jsonl").read_text().splitlines()
    assert again[1:] == CASSETTE.read_text().splitlines()[1:]


def test_a_changed_prompt_misses_with_a_diff_naming_the_agent_and_turn(tmp_path: Path) -> None:
    pytest.importorskip("retinue_team", reason="the lead hires its helper through retinue-team")
    shutil.copy(TEAMS / "pair_script.py", tmp_path)
    text = PAIR.read_text().replace(
        'description = "Helps the lead"', 'description = "Helps the lead"\nprompt = "Be brief."'
    )
    (tmp_path / "pair.toml").write_text(text)
    report = play_cassette(tmp_path / "pair.toml", CASSETTE)
    assert report.stopped and [(d.agent, d.turn) for d in report.differences] == [("@Helper", 1)]
    assert "+Be brief." in report.render()


def test_a_missing_or_malformed_cassette_is_one_line_naming_it(tmp_path: Path) -> None:
    with pytest.raises(ReplayError, match=r"^cassette .*nothing.jsonl does not exist$"):
        play_cassette(PAIR, tmp_path / "nothing.jsonl")
    bad = tmp_path / "bad.jsonl"
    bad.write_text(CASSETTE.read_text().replace('"kind": "exchange"', '"kind": "exchange?"', 1))
    with pytest.raises(ReplayError, match=r"bad.jsonl line 4: unknown kind 'exchange\?'$"):
        play_cassette(PAIR, bad)


def test_credentials_are_redacted_and_the_cassette_still_plays(tmp_path: Path) -> None:
    """A prompt holding a URL with a password: the cassette hides it as the record's configs
    do, and the replayed request is compared with it hidden too."""
    pytest.importorskip("retinue_team", reason="the lead hires its helper through retinue-team")
    shutil.copy(TEAMS / "pair_script.py", tmp_path)
    hook = "https://bot:hunter2@hooks.example.org/notify?api_key=abc123"
    text = PAIR.read_text().replace(
        'description = "Helps the lead"',
        f'description = "Helps the lead"\nprompt = "Post to {hook}"',
    )
    (tmp_path / "pair.toml").write_text(text)
    where = tmp_path / "team.sqlite"
    with load_team_file(tmp_path / "pair.toml").start(store=str(where)) as running:
        running.send("plan it")
        running.wait_idle()
        team_id = running.orchestrator.team_id
    assert team_id is not None
    with open_store(where, create=False) as store:
        export_cassette(store, team_id, tmp_path / "pair.jsonl")
    cassette = (tmp_path / "pair.jsonl").read_text()
    assert "hunter2" not in cassette and "abc123" not in cassette
    assert "https://bot:***@hooks.example.org/notify?api_key=***" in cassette
    report = play_cassette(tmp_path / "pair.toml", tmp_path / "pair.jsonl")
    assert report.ok, report.render()


def test_an_agent_the_cassette_has_no_turn_of_is_named_and_leftovers_are_listed(
    tmp_path: Path,
) -> None:
    pytest.importorskip("retinue_team", reason="the lead hires its helper through retinue-team")
    lines = CASSETTE.read_text().splitlines()
    (tmp_path / "no_helper.jsonl").write_text(
        "\n".join(line for line in lines if '"agent": "@Helper"' not in line) + "\n"
    )
    strict = play_cassette(PAIR, tmp_path / "no_helper.jsonl")
    assert strict.stopped
    assert [(d.agent, d.turn, d.what) for d in strict.differences] == [("@Helper", 1, "extra")]
    assert "the record has no turn of this agent" in strict.render()

    lenient = play_cassette(PAIR, tmp_path / "no_helper.jsonl", lenient=True)
    assert [(d.agent, d.turn, d.what) for d in lenient.differences] == [
        ("@Helper", 1, "extra"),
        ("@Lead", 2, "messages"),  # the Lead was told of the Helper's failure, not its answer
    ]


def test_a_message_to_a_member_the_team_file_does_not_start_is_a_difference(
    tmp_path: Path,
) -> None:
    text = CASSETTE.read_text().replace('"to": "@Lead"', '"to": "@Planner"')
    (tmp_path / "planner.jsonl").write_text(text)
    report = play_cassette(PAIR, tmp_path / "planner.jsonl")
    assert report.stopped and report.replayed == 0
    (difference,) = report.differences
    assert str(difference) == "the person's message 1 cannot be sent\n    no member @Planner"
