"""`retinue replay`, `retinue export --cassette` and `retinue run --cassette` through the
command's entry point, on a session of tests/cli/teams/pair.toml recorded into a file."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from retinue.cli.main import main
from retinue.teamfile import load_team_file

from tests.cli.conftest import TEAMS

PAIR = TEAMS / "pair.toml"


@pytest.fixture
def recorded(tmp_path: Path) -> tuple[str, str]:
    """A session of pair.toml recorded into a SQLite file: (the file, the team's id)."""
    where = str(tmp_path / "team.sqlite")
    with load_team_file(PAIR).start(store=where) as running:
        running.send("ship it")
        running.wait_idle()
        team_id = running.orchestrator.team_id
    assert team_id is not None
    return where, team_id


def test_replay_and_export_then_run_against_the_cassette(
    recorded: tuple[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("retinue_team", reason="the lead hires its helper through retinue-team")
    where, team_id = recorded
    assert main(["replay", team_id[:8], "--store", where]) == 0
    out = capsys.readouterr().out
    assert (
        out == f"{team_id}: 3 turns recorded, 3 replayed, 3 equal, 0 differing; "
        "the same answers to the person\n"
    )

    cassette = tmp_path / "pair.jsonl"
    assert main(["export", team_id[:8], "--store", where, "--cassette", str(cassette)]) == 0
    assert capsys.readouterr().out == f"3 exchanges of team {team_id} written to {cassette}\n"
    rows = [json.loads(line) for line in cassette.read_text().splitlines()]
    assert [row["kind"] for row in rows] == [
        "cassette",
        "say",
        "tools",  # @Helper's, before its only turn
        "exchange",
        "tools",  # @Lead's: hire_members
        "exchange",
        "tools",  # @Lead's second turn offers fire_members too: only that one defined
        "exchange",
        "answer",
    ]
    assert [row["definitions"][0]["name"] for row in rows if row["kind"] == "tools"][1:] == [
        "hire_members",
        "fire_members",
    ]

    assert main(["run", str(PAIR), "--cassette", str(cassette)]) == 0
    assert "3 equal, 0 differing; the same answers" in capsys.readouterr().out

    assert main(["replay", team_id, "--store", where, "--record"]) == 0
    assert "the replay is recorded as team" in capsys.readouterr().out


def test_a_difference_exits_1_with_the_diff_and_lenient_lists_it(
    recorded: tuple[str, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    pytest.importorskip("retinue_team", reason="the lead hires its helper through retinue-team")
    where, team_id = recorded
    cassette = tmp_path / "pair.jsonl"
    assert main(["export", team_id, "--store", where, "--cassette", str(cassette)]) == 0
    shutil.copy(TEAMS / "pair_script.py", tmp_path)
    changed = tmp_path / "pair.toml"
    changed.write_text(
        PAIR.read_text().replace('"Helps the lead"', '"Helps the lead"\nprompt = "Be brief."')
    )
    capsys.readouterr()

    assert main(["run", str(changed), "--cassette", str(cassette)]) == 1
    out = capsys.readouterr().out
    assert "@Helper turn 1: the instructions differ" in out and "+Be brief." in out
    assert "replay stopped at the first difference" in out

    assert main(["run", str(changed), "--cassette", str(cassette), "--lenient"]) == 1
    out = capsys.readouterr().out
    assert out.count("the instructions differ") == 1
    assert out.endswith("3 replayed, 2 equal, 1 differing; the same answers to the person\n")


@pytest.mark.parametrize(
    ("args", "error"),
    [
        (["replay", "beef"], "retinue replay: {where} has no team beef (see `retinue teams`)"),
        (
            ["export", "beef", "--cassette", "x.jsonl"],
            "retinue export: {where} has no team beef (see `retinue teams`)",
        ),
        (
            ["run", str(PAIR), "--cassette", "{tmp}/bad.jsonl", "-m", "hello"],
            "retinue run: --cassette plays the person's messages it holds: give no --message",
        ),
        (
            ["run", str(PAIR), "--cassette", "{tmp}/none.jsonl"],
            "retinue run: cassette {tmp}/none.jsonl does not exist",
        ),
        (
            ["run", str(PAIR), "--cassette", "{tmp}/bad.jsonl"],
            "retinue run: cassette {tmp}/bad.jsonl line 2 is not JSON: "
            "Expecting value: line 1 column 1 (char 0)",
        ),
    ],
)
def test_bad_input_is_one_line_and_exit_2(
    recorded: tuple[str, str],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    args: list[str],
    error: str,
) -> None:
    where, _ = recorded
    (tmp_path / "bad.jsonl").write_text('{"kind": "cassette", "version": 1}\nnot json\n')
    argv = [a.replace("{tmp}", str(tmp_path)) for a in args]
    if argv[0] != "run":
        argv += ["--store", where]
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert captured.err == error.format(where=where, tmp=tmp_path) + "\n"
    assert captured.out == ""
