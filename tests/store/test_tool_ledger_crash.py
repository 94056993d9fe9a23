"""The tool-effect ledger across a SIGKILL: a turn killed while its tools run, then resumed.

The Worker's turn calls `note` (returns), and `look` (read-only), `put` (idempotent) and
`launch` (effect unknown), which are running when the process is killed. The resume (in
this process) runs the turn again: its model's first request tells it, once, that `launch`
may have run, with its arguments; `look` and `put` are simply run again and nothing is said
of them, nor of `note`, which finished.
"""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import ledger_run
from resume_helpers import HERE, WAIT, env, lines_until
from retinue import EventMessage, ToolCallFinishedEvent, ToolCallStartedEvent
from retinue.record import decode
from retinue.resume import resume_team
from retinue.store import open_store

EXPECTED = {
    "LEDGER ToolCallStartedEvent note",
    "LEDGER ToolCallFinishedEvent note",
    "LEDGER ToolCallStartedEvent look",
    "LEDGER ToolCallStartedEvent put",
    "LEDGER ToolCallStartedEvent launch",
    "LEDGER launch ran, its start committed: True",  # read by the tool, before it blocks
}


def kill_mid_tools(where: str) -> str:
    """Run the team until its four calls are committed as the test needs; SIGKILL it."""
    proc = subprocess.Popen(
        [sys.executable, str(HERE / "ledger_run.py"), where],
        stdout=subprocess.PIPE,
        text=True,
        env=env(LEDGER_BLOCK="1", LEDGER_STORE=where),
    )
    seen: set[str] = set()
    team_id = ""
    try:
        for line in lines_until(proc, "LEDGER"):
            team_id = line.removeprefix("TEAM ") if line.startswith("TEAM ") else team_id
            seen.add(line)
        while not seen >= EXPECTED:
            seen.update(lines_until(proc, "LEDGER"))
    finally:
        proc.send_signal(signal.SIGKILL)
        assert proc.wait(WAIT) == -signal.SIGKILL
    assert "LEDGER ToolCallFinishedEvent launch" not in seen
    return team_id


def ledger(where: str, team_id: str) -> list[tuple[str, str]]:
    with open_store(where, create=False) as store:
        events = [decode(r.data) for r in store.read(team_id)]
    return [
        (type(m.event).__name__, m.event.tool_name)
        for m in events
        if isinstance(m, EventMessage)
        and isinstance(m.event, ToolCallStartedEvent | ToolCallFinishedEvent)
    ]


def test_a_call_cut_short_by_a_crash_is_told_to_the_model_once(tmp_path: Path) -> None:
    where = str(tmp_path / "team.sqlite")
    team_id = kill_mid_tools(where)
    before = ledger(where, team_id)
    assert ("ToolCallStartedEvent", "launch") in before
    assert ("ToolCallFinishedEvent", "launch") not in before

    ledger_run.SEEN.clear()
    store = open_store(where, create=False)
    team = resume_team(store, team_id)
    try:
        team.wait_idle(WAIT)
    finally:
        team.shutdown()
        store.close()

    first, *rest = ledger_run.SEEN  # the rerun's requests: the calls, then their results
    assert rest and "unknown after crash" not in "".join(rest)
    notice = [line for line in first.splitlines() if "unknown after crash" in line]
    assert notice == [
        "[retinue] A crash cut your earlier attempt at this message short. These tool calls "
        'may have run, unknown after crash: launch({"target": "rocket"})'
    ]
    after = ledger(where, team_id)[len(before) :]
    for tool in ("note", "look", "put", "launch"):  # all run again, and finished this time
        assert ("ToolCallStartedEvent", tool) in after
        assert ("ToolCallFinishedEvent", tool) in after
