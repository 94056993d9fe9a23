"""A call waiting for approval across a SIGKILL: resumed, it waits again, one `/approve` runs
the tool once, and the message held meanwhile gets its turn once, after the run."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import pytest
from approval_writers import recorded, to_human
from resume_helpers import HERE, WAIT, env, lines_until
from retinue import EventMessage, ToolCallStartedEvent
from retinue.resume import resume_team
from retinue.store import open_store

pytest.importorskip("retinue_workspace", reason="the parked call is a workspace write")
import approve_run  # only once the workspace is known to be installed


def kill_while_parked(where: str, root: Path) -> str:
    proc = subprocess.Popen(
        [sys.executable, str(HERE / "approve_run.py"), where, str(root)],
        stdout=subprocess.PIPE,
        text=True,
        env=env(),
    )
    try:
        lines = list(lines_until(proc, "HELD"))
    finally:
        proc.send_signal(signal.SIGKILL)
        assert proc.wait(WAIT) == -signal.SIGKILL
    (team,) = [line.removeprefix("TEAM ") for line in lines if line.startswith("TEAM ")]
    return team


def test_a_parked_call_is_asked_again_after_a_crash_and_runs_once(tmp_path: Path) -> None:
    where, root = str(tmp_path / "team.sqlite"), tmp_path / "files"
    team_id = kill_while_parked(where, root)
    before = len(recorded(where, team_id))
    assert not (root / "out.txt").exists()

    approve_run.RESULTS.clear()
    store = open_store(where, create=False)
    team = resume_team(store, team_id)
    try:
        team.wait_idle(WAIT)
        writer = team.roster["@Writer"]
        team.send("/approve 1", to=writer)
        team.wait_idle(WAIT)
        team.send("/approve 1", to=writer)  # once more: refused, nothing runs again
        team.wait_idle(WAIT)
    finally:
        team.shutdown()
        store.close()

    assert (root / "out.txt").read_text() == "hello"
    assert len(approve_run.RESULTS) == 1 and "out.txt" in approve_run.RESULTS[0]
    after = recorded(where, team_id)[before:]
    asked_again, approved, done, held, refused = to_human(after)
    assert asked_again.startswith("@Writer waits for your approval")
    assert "[1] workspace_write(" in asked_again
    assert approved == "Approved workspace_write (call 1). The run goes on."
    assert done == f"wrote: {approve_run.RESULTS[0]}"
    assert held == "answered: and then?"  # held across the crash, handled once after the run
    assert refused == "/approve 1: refused, that call is no longer pending (already approved)."
    starts = [
        m.event
        for m in after
        if isinstance(m, EventMessage) and isinstance(m.event, ToolCallStartedEvent)
    ]
    assert [event.tool_name for event in starts] == ["workspace_write"]
