"""`retinue teams` and `retinue log`, run as the real command on real stores."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from retinue.cli.main import main
from retinue.store import SQLiteStore
from retinue.testing import TeamHarness, scripted_card

HERE = Path(__file__).parent
UNTIL = 12


@pytest.fixture
def recorded(tmp_path: Path) -> Iterator[tuple[Path, str]]:
    """A SQLite store holding one finished team: the human, a manager, a developer."""
    path = tmp_path / "team.sqlite"
    team = TeamHarness(store=str(path))
    try:
        manager = team.add(scripted_card("Manager", routes_to=["Developer"]))
        team.add(scripted_card("Developer"))
        team.say(
            manager,
            "send @Developer request: send @Manager response: plan ready\n"
            "send @Human response: asked the \x1b[31mDeveloper\x1b[0m",
        )
        team.wait_idle()
        team_id = team.team_id
    finally:
        team.shutdown()
    yield path, team_id


def test_teams_lists_each_team_with_members_activity_and_usage(
    recorded: tuple[Path, str], capsys: pytest.CaptureFixture[str]
) -> None:
    path, team_id = recorded
    with SQLiteStore(path, create=False) as store:
        requests = sum(r.requests for r in store.read(team_id, kinds=["LlmUsageEvent"]))
    assert requests >= 3  # the manager twice, the developer once
    assert main(["teams", "--store", str(path)]) == 0
    header, row = capsys.readouterr().out.splitlines()
    assert header.split()[:4] == ["TEAM", "CREATED", "LAST", "ACTIVITY"]
    assert row.startswith(team_id) and "@Human, @Manager, @Developer" in row
    assert f"{requests} requests" in row and "tokens" in row
    assert main(["teams", "--store", str(path), "--json"]) == 0
    (line,) = capsys.readouterr().out.splitlines()
    data = json.loads(line)
    assert data["team_id"] == team_id and data["requests"] == requests
    assert data["members"] == ["@Human", "@Manager", "@Developer"]


def test_log_prints_who_wrote_to_whom_with_intent_and_text(
    recorded: tuple[Path, str], capsys: pytest.CaptureFixture[str]
) -> None:
    path, team_id = recorded
    assert main(["log", team_id[:6], "--store", str(path)]) == 0
    out = capsys.readouterr().out
    assert "\n    send @Human response:" in out  # a text's further lines are indented
    lines = [line.split("] ", 1)[1] for line in out.splitlines() if line.startswith("[")]
    assert lines[0].startswith("@Human → @Manager (request): send @Developer request:")
    assert lines[1:] == [
        "@Manager → @Developer (request): send @Manager response: plan ready",
        "@Manager → @Human (response): asked the \\x1b[31mDeveloper\\x1b[0m",  # escaped
        "@Developer → @Manager (response): plan ready",
    ]
    assert main(["log", team_id, "--store", str(path), "--json"]) == 0
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(r["from"], r["to"], r["intent"]) for r in records] == [
        ("@Human", "@Manager", "request"),
        ("@Manager", "@Developer", "request"),
        ("@Manager", "@Human", "response"),
        ("@Developer", "@Manager", "response"),
    ]
    assert records[2]["text"] == "asked the \x1b[31mDeveloper\x1b[0m"  # JSON keeps it exact
    assert all(r["chain_id"] == records[0]["chain_id"] for r in records)
    assert main(["log", team_id, "--store", str(path), "--all"]) == 0
    assert "· StateChangedMessage" in capsys.readouterr().out


def test_readers_name_the_problem_and_create_nothing(
    recorded: tuple[Path, str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, _ = recorded
    missing = tmp_path / "missing.sqlite"
    assert main(["teams", "--store", str(missing)]) == 1
    assert "no such store" in capsys.readouterr().err and not missing.exists()
    assert main(["log", "feedface", "--store", str(path)]) == 1
    assert "has no team feedface" in capsys.readouterr().err
    other = SQLiteStore(path)
    try:
        other.create_team("zz1")  # not hex: the recorded team's random id cannot share it
        other.create_team("zz2")
    finally:
        other.close()
    assert main(["log", "zz", "--store", str(path)]) == 1
    assert "zz names 2 teams" in capsys.readouterr().err


def test_log_follow_prints_a_running_team_as_another_process_writes_it(tmp_path: Path) -> None:
    path = tmp_path / "live.sqlite"
    env = {**os.environ, "PYTHONPATH": str(HERE)}
    writer = subprocess.Popen(
        [sys.executable, str(HERE / "crash_team.py"), str(path), str(UNTIL)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    follower: subprocess.Popen[str] | None = None
    try:
        assert writer.stdout is not None and writer.stdin is not None
        team_id = writer.stdout.readline().split()[1]
        follower = subprocess.Popen(
            [sys.executable, "-m", "retinue", "log", team_id, "--store", str(path), "--follow"],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert follower.stderr is not None
        assert follower.stderr.readline().startswith(f"following team {team_id}")
        writer.stdin.write("go\n")  # the conversation starts only now, while it is followed
        writer.stdin.flush()
        out, err = follower.communicate(timeout=120)  # it ends at the team's own stop
        assert writer.wait(timeout=60) == 0
    finally:
        for process in (writer, follower):
            if process is not None and process.poll() is None:
                process.kill()
                process.wait()
    assert follower.returncode == 0, err
    texts = [line.rsplit(": ", 1)[1] for line in out.splitlines()]
    assert texts == [str(n) for n in range(UNTIL + 1)]
    assert out.splitlines()[1].split("] ", 1)[1] == "@Pong → @Ping (request): 1"
