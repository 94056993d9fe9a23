"""What the record says was sent survives SIGKILL: a real process, killed mid-conversation."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from retinue import SentMessage
from retinue.store import open_store
from retinue.team.record_codec import decode

HERE = Path(__file__).parent
#: How many committed sends the test waits to hear of before it kills the team.
SENDS_BEFORE_KILL = 40


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
def test_a_team_killed_with_sigkill_leaves_every_reported_send_in_a_consistent_record(
    tmp_path: Path, kind: str, request: pytest.FixtureRequest
) -> None:
    path = tmp_path / "team.sqlite"
    where = str(path) if kind == "sqlite" else request.getfixturevalue("fresh_postgres")
    env = {**os.environ, "PYTHONPATH": str(HERE)}
    process = subprocess.Popen(
        [sys.executable, str(HERE / "crash_team.py"), where],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    reported: list[str] = []
    try:
        assert process.stdout is not None
        for line in process.stdout:
            if line.startswith("sent "):
                reported.append(line.split()[1])
            if len(reported) >= SENDS_BEFORE_KILL:
                break
        process.send_signal(signal.SIGKILL)  # mid-conversation: the volley never pauses
        # what the kernel had buffered from the process before it died was also reported;
        # read on through the same file (`communicate` would skip what it has read ahead)
        rest = process.stdout.read()
        assert process.stderr is not None
        errors = process.stderr.read()
        process.wait(60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == -signal.SIGKILL
    reported += [line.split()[1] for line in rest.splitlines() if line.startswith("sent ")]
    assert len(reported) >= SENDS_BEFORE_KILL, errors[-2000:]

    if kind == "sqlite":
        raw = sqlite3.connect(path)
        try:
            assert raw.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        finally:
            raw.close()
    store = open_store(where, create=False)
    try:
        (team,) = store.list_teams()
        records = list(store.read(team.team_id))
        assert [r.position for r in records] == list(range(1, team.last_position + 1))
        messages = [decode(r.data) for r in records]  # every record reads back
        sent = [m.message.id for m in messages if isinstance(m, SentMessage)]
        assert set(reported) <= set(sent)
        assert sent[: len(reported)] == reported  # in the order they were reported
        snapshots = store.snapshots(team.team_id)
        assert {m.name for m in store.members(team.team_id)} == {"@Ping", "@Pong"}
        assert all(r.kind == "StateChangedMessage" for r in snapshots.values())
    finally:
        store.close()
