"""A team killed with SIGKILL mid-conversation, resumed from its store in a new process.

The first process runs the team on scripted models until the Worker's model is in the middle
of its run, says so, and is killed. A second process (the Python API, or `retinue resume`)
resumes the team from the same store; the conversation completes. Everything is asserted
from the record: no message lost, none that had been handled handled twice, and every
member back under its own name and id.
"""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from pathlib import Path

from resume_helpers import DRIVER, WAIT, env, start_and_kill
from retinue import ActorAddress, AgentMessage, HandledMessage, SentMessage, StartMessage
from retinue.resume import TeamResumedEvent
from retinue.store import Store, open_store
from retinue.team.record_codec import decode


def record(store: Store, team_id: str) -> list[object]:
    return [decode(r.data) for r in store.read(team_id)]


def conversation(messages: list[object]) -> list[AgentMessage]:
    return [
        m.message
        for m in messages
        if isinstance(m, SentMessage) and isinstance(m.message, AgentMessage)
    ]


def name_of(address: ActorAddress | None) -> str:
    assert address is not None
    return address.name


def check_killed_mid_conversation(store: Store, team_id: str) -> str:
    """What the killed process left: the Worker's request delivered, not handled. Its id."""
    before = record(store, team_id)
    sent = conversation(before)
    assert [(m.sender.name, m.recipient.name) for m in sent if m.sender and m.recipient] == [
        ("@Human", "@Manager"),
        ("@Manager", "@Worker"),
    ]
    handled = {m.message_id for m in before if isinstance(m, HandledMessage)}
    first, to_worker = sent
    assert first.id in handled and to_worker.id not in handled
    return to_worker.id


def check_completed_once(store: Store, team_id: str, owed: str) -> None:
    """The conversation completed; each message handled exactly once; names and ids kept."""
    after = record(store, team_id)
    sent = conversation(after)
    assert [(m.sender.name, name_of(m.recipient), m.content) for m in sent if m.sender] == [
        ("@Human", "@Manager", "count the stars"),
        ("@Manager", "@Worker", "task: count the stars"),
        ("@Worker", "@Manager", "result of task: count the stars"),
        ("@Manager", "@Human", "done: result of task: count the stars"),
    ]
    handled = Counter(m.message_id for m in after if isinstance(m, HandledMessage))
    assert all(handled[m.id] == 1 for m in sent), handled  # none lost, none twice
    events = [getattr(m, "event", None) for m in after]
    (resumed,) = [event for event in events if isinstance(event, TeamResumedEvent)]
    assert resumed.redelivered == [owed]
    assert resumed.members == ["@Human", "@Manager", "@Worker"]
    starts = Counter(
        (m.sender.name, m.sender.agent_id)
        for m in after
        if isinstance(m, StartMessage) and m.sender is not None
    )
    # Each member started twice (once per process), under one name and one id.
    assert sorted(name for name, _ in starts) == ["@Human", "@Manager", "@Orchestrator", "@Worker"]
    assert set(starts.values()) == {2}


def kill_and_resume(where: str) -> None:
    """The must-show: killed mid-conversation, resumed by the API in a new process."""
    team_id = start_and_kill(where)
    with open_store(where, create=False) as store:
        owed = check_killed_mid_conversation(store, team_id)

    done = subprocess.run(
        [sys.executable, str(DRIVER), "resume", where, team_id],
        check=False,
        capture_output=True,
        text=True,
        env=env(),
        timeout=WAIT,
    )

    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "DONE @Human, @Manager, @Worker"
    with open_store(where, create=False) as store:
        check_completed_once(store, team_id, owed)


def test_a_killed_team_resumes_from_its_sqlite_file_in_a_new_process(tmp_path: Path) -> None:
    kill_and_resume(str(tmp_path / "team.sqlite"))


def test_a_killed_team_resumes_from_postgresql_in_a_new_process(fresh_postgres: str) -> None:
    kill_and_resume(fresh_postgres)


def test_retinue_resume_continues_a_killed_team_from_the_command_line(tmp_path: Path) -> None:
    where = str(tmp_path / "team.sqlite")
    team_id = start_and_kill(where)
    with open_store(where, create=False) as store:
        owed = check_killed_mid_conversation(store, team_id)

    done = subprocess.run(
        [sys.executable, "-m", "retinue.cli.main", "resume", team_id, "--store", where],
        check=False,
        capture_output=True,
        text=True,
        env=env(),
        timeout=WAIT,
        stdin=subprocess.DEVNULL,
    )

    assert done.returncode == 0, done.stderr
    out = done.stdout.splitlines()
    assert out[0] == f"resumed team {team_id}: @Human, @Manager, @Worker"
    assert out[1] == "  delivered again: @Manager -> @Worker [request] task: count the stars"
    printed = [" ".join(line.split()) for line in out]  # the console pads its columns
    assert "@Worker → @Manager [response] result of task: count the stars" in printed
    assert "@Manager → @Human [response] done: result of task: count the stars" in printed
    assert out[-1] == "nothing is left owed: every delivered message was handled"
    with open_store(where, create=False) as store:
        check_completed_once(store, team_id, owed)
