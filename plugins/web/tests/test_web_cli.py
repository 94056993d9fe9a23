"""`retinue web` as a person runs it: a subprocess serving a team file's team, or a store."""

from __future__ import annotations

import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from retinue.cli.main import main
from web_helpers import SOLO, TIMEOUT, port_of, request, retinue, wait_until


def ended(process: subprocess.Popen[str]) -> tuple[int, str]:
    process.send_signal(signal.SIGINT)
    _, err = process.communicate(timeout=TIMEOUT)
    return process.returncode, err


@pytest.fixture
def served() -> Iterator[subprocess.Popen[str]]:
    process = retinue(str(SOLO))
    yield process
    if process.poll() is None:
        process.kill()
        process.wait(TIMEOUT)


def test_retinue_web_runs_a_team_file_and_the_person_talks_to_it(
    served: subprocess.Popen[str],
) -> None:
    port, lines = port_of(served)
    _, listed = request(port, "GET", "/api/teams")
    (team,) = listed["teams"]
    status, _ = request(
        port, "POST", f"/api/teams/{team['id']}/say", {"to": "@Assistant", "text": "hello"}
    )
    answer = wait_until(
        lambda: [
            i
            for i in request(port, "GET", f"/api/teams/{team['id']}/snapshot")[1]["flow"]
            if i["to"] == "@Human"
        ],
        what="the assistant's answer",
    )
    code, err = ended(served)

    assert lines[0] == "retinue web: team 'solo': @Human talks to @Assistant"
    assert team["name"] == "solo" and team["live"] is True and status == 200
    assert answer[0]["text"] == "You asked: 'hello'. (scripted answer)"
    assert code == 0 and "shutting the team down" in err


def test_retinue_web_records_to_a_store_and_browses_it(tmp_path: Path) -> None:
    where = tmp_path / "teams.sqlite"
    running = retinue(str(SOLO), "--store", str(where))
    port, _ = port_of(running)
    team_id = request(port, "GET", "/api/teams")[1]["teams"][0]["id"]
    request(port, "POST", f"/api/teams/{team_id}/say", {"to": "@Assistant", "text": "hi"})
    wait_until(
        lambda: len(request(port, "GET", f"/api/teams/{team_id}/snapshot")[1]["flow"]) >= 2,
        what="the answer",
    )
    assert ended(running)[0] == 0

    browsing = retinue("--store", str(where))
    port, lines = port_of(browsing)
    _, listed = request(port, "GET", "/api/teams")
    _, shot = request(port, "GET", f"/api/teams/{team_id}/snapshot")
    code, _ = ended(browsing)

    assert lines[0] == "retinue web: the recorded teams"
    assert [t["id"] for t in listed["teams"]] == [team_id] and not listed["teams"][0]["live"]
    assert [i["text"] for i in shot["flow"]][:1] == ["hi"] and shot["team"]["ended"]
    assert code == 0


def test_retinue_web_refuses_what_it_cannot_do(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    def run(*args: str) -> tuple[int, str]:
        code = main(["web", *args])
        return code, capsys.readouterr().err

    nothing = run()
    no_store = run("--store", str(tmp_path / "none.sqlite"))
    no_file = run(str(tmp_path / "none.toml"))
    bad_port = run(str(SOLO), "--port", "70000")

    assert nothing == (
        2,
        "retinue web: give a team file to run, or --store to browse recorded teams\n",
    )
    assert no_store[0] == 1 and "none.sqlite" in no_store[1]
    assert no_file[0] == 2 and "none.toml" in no_file[1]
    assert bad_port == (2, "retinue web: --port must be 0-65535, got 70000\n")
    assert not (tmp_path / "none.sqlite").exists()


def test_retinue_run_web_shows_the_console_team_in_the_browser_too() -> None:
    process = subprocess.Popen(
        [sys.executable, "-m", "retinue", "run", str(SOLO), "--web", "0"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        port, _ = port_of(process)
        _, listed = request(port, "GET", "/api/teams")
        (team,) = listed["teams"]
        status, _ = request(
            port,
            "POST",
            f"/api/teams/{team['id']}/say",
            {"to": "@Assistant", "text": "from the page"},
        )
        wait_until(
            lambda: len(request(port, "GET", f"/api/teams/{team['id']}/snapshot")[1]["flow"]) >= 2,
            what="the answer in the page",
        )
        out, err = process.communicate("typed at the console\n", timeout=TIMEOUT)
    finally:
        if process.poll() is None:
            process.kill()

    assert status == 200 and team["live"] is True
    assert "You asked: 'from the page'." in out  # the console shows what the page said
    assert "You asked: 'typed at the console'." in out
    assert process.returncode == 0, err
