"""What the crash-resume tests share: the driver (`resume_run.py`) started in a new process
with this directory importable, its output read up to a line, and the team killed mid-run."""

from __future__ import annotations

import os
import selectors
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

HERE = Path(__file__).parent
DRIVER = HERE / "resume_run.py"
WAIT = 60.0


def env(**extra: str) -> dict[str, str]:
    """The test's environment, with this directory importable (the scripts live here)."""
    path = os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")])
    return {**os.environ, "PYTHONPATH": path, **extra}


def lines_until(proc: subprocess.Popen[str], last: str) -> Iterator[str]:
    """The process's output lines up to the one starting with `last`; fails past `WAIT`."""
    assert proc.stdout is not None
    with selectors.DefaultSelector() as selector:
        selector.register(proc.stdout, selectors.EVENT_READ)
        while True:
            if not selector.select(WAIT):
                proc.kill()
                pytest.fail(f"no {last!r} from the team's process within {WAIT:g}s")
            line = proc.stdout.readline()
            if not line:
                pytest.fail(f"the team's process ended before {last!r}: {proc.wait()}")
            yield line.rstrip("\n")
            if line.startswith(last):
                return


def start_and_kill(where: str) -> str:
    """Start the team, wait until it is mid-conversation, SIGKILL it; its team id."""
    proc = subprocess.Popen(
        [sys.executable, str(DRIVER), "start", where],
        stdout=subprocess.PIPE,
        text=True,
        env=env(RETINUE_CRASH_BLOCK="1"),
    )
    try:
        lines = list(lines_until(proc, "BLOCKED"))
    finally:
        proc.send_signal(signal.SIGKILL)
        assert proc.wait(WAIT) == -signal.SIGKILL
    (team_line,) = [line for line in lines if line.startswith("TEAM ")]
    return team_line.removeprefix("TEAM ")
