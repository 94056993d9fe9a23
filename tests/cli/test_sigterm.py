"""A `kill` (SIGTERM, as a service manager stops a process) ends a `retinue run` or `retinue
resume` session as /quit does: the team is shut down and its record says so."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

from retinue.store import open_store

from tests.cli.conftest import TEAMS, command_env

TIMEOUT = 60


def _session(cwd: Path, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "retinue", *args],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=cwd,
        env=command_env(),
    )


def _killed_once_talking(process: subprocess.Popen[str], up: str) -> tuple[int, str]:
    """SIGTERM once the session's first line holds `up`; its status and stderr."""
    try:
        assert process.stdout is not None
        for line in process.stdout:  # blocks until the session is up: no sleeping
            if up in line:
                break
        else:
            raise AssertionError("the session never started")
        process.send_signal(signal.SIGTERM)
        _, err = process.communicate(timeout=TIMEOUT)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait(TIMEOUT)
    return process.returncode, err


def _last_record(store_path: Path) -> tuple[str, str | None, bool]:
    with open_store(store_path, create=False) as store:
        (team,) = store.list_teams()  # the resume goes on with the same team
        last = list(store.read(team.team_id))[-1]
    return last.kind, last.sender, json.loads(last.data).get("shutdown", False)


def test_sigterm_ends_a_run_session_with_its_team_shut_down_and_recorded(tmp_path: Path) -> None:
    where = tmp_path / "team.sqlite"
    status, err = _killed_once_talking(
        _session(tmp_path, "run", str(TEAMS / "answers.toml"), "--store", str(where)),
        "talking to",
    )

    assert status == 128 + signal.SIGTERM, err
    assert "Traceback" not in err
    assert _last_record(where) == ("StopMessage", "@Orchestrator", True)

    # ... and a `retinue resume` session killed the same way ends as cleanly.
    with open_store(where, create=False) as store:
        (team,) = store.list_teams()
    status, err = _killed_once_talking(
        _session(tmp_path, "resume", team.team_id, "--store", str(where)), "resumed team"
    )
    assert status == 128 + signal.SIGTERM, err
    assert "Traceback" not in err
    assert _last_record(where) == ("StopMessage", "@Orchestrator", True)
