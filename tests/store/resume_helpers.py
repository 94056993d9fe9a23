"""What the crash-resume tests share: the driver (`resume_run.py`) started in a new process
with this directory importable, its output read up to a line, and the team killed mid-run."""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import sys
import threading
import weakref
from collections.abc import Iterator
from pathlib import Path

import pytest
from retinue import AgentCard, EventSubscriber

HERE = Path(__file__).parent
DRIVER = HERE / "resume_run.py"
WAIT = 60.0


def env(**extra: str) -> dict[str, str]:
    """The test's environment, with this directory importable (the scripts live here)."""
    path = os.pathsep.join([str(HERE), os.environ.get("PYTHONPATH", "")])
    return {**os.environ, "PYTHONPATH": path, **extra}


def lines_until(proc: subprocess.Popen[str], last: str) -> Iterator[str]:
    """The process's output lines up to the one starting with `last`; fails past `WAIT`.

    Lines are read by a thread of their own: a `select` on the pipe cannot see lines already
    in the reader's buffer, so waiting on it could miss the very line it waits for."""
    lines = _reader(proc)
    while True:
        try:
            line = lines.get(timeout=WAIT)
        except queue.Empty:
            proc.kill()
            pytest.fail(f"no {last!r} from the team's process within {WAIT:g}s")
        if line is None:
            pytest.fail(f"the team's process ended before {last!r}: {proc.wait()}")
        yield line.rstrip("\n")
        if line.startswith(last):
            return


_READERS: weakref.WeakKeyDictionary[subprocess.Popen[str], queue.Queue[str | None]] = (
    weakref.WeakKeyDictionary()
)


def _reader(proc: subprocess.Popen[str]) -> queue.Queue[str | None]:
    """The queue of `proc`'s output lines (None once it ends), read by one thread."""
    if proc not in _READERS:
        assert proc.stdout is not None
        lines: queue.Queue[str | None] = queue.Queue()
        stdout = proc.stdout

        def read() -> None:
            for line in stdout:
                lines.put(line)
            lines.put(None)

        threading.Thread(target=read, daemon=True).start()
        _READERS[proc] = lines
    return _READERS[proc]


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


def run_until_killed(store: str, subscriber: EventSubscriber, card: AgentCard, *texts: str) -> None:
    """In a team's process: record to `store`, start @Human and `card`'s member, print
    `TEAM <id>`, have the person send it `texts`, and run until the process is killed."""
    from retinue import ActorSystem, AgentMessage, BaseConfig, HumanProxy, Orchestrator

    system = ActorSystem(store=store)
    orchestrator = system.createActor(
        Orchestrator, BaseConfig(name="@Orchestrator", role="Orchestrator")
    )
    team = system.proxy_ask(orchestrator, Orchestrator)
    team.subscribe(subscriber)
    print(f"TEAM {orchestrator.team_id}", flush=True)
    human = team.createActor(HumanProxy, BaseConfig(name="@Human", role="Human"))
    member = team.createActor("retinue.BaseAgent", card.get_config_copy())
    for text in texts:
        system.proxy_ask(human, HumanProxy).send(member, AgentMessage(content=text))
    threading.Event().wait()  # until killed
