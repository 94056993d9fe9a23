"""`retinue a2a serve --store` stopped and started again: the tasks and the conversations
come back from the record (real subprocesses, the a2a-sdk's own client, a SQLite store)."""

from __future__ import annotations

import asyncio
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from a2a.types.a2a_pb2 import GetTaskRequest, ListTasksRequest, Role
from a2a_helpers import TEAM, TIMEOUT, client, free_port, user_message
from retinue.store import open_store
from retinue.testing import lines_until
from retinue_a2a.recorded import CONTEXT_KIND, CUT_SHORT
from retinue_a2a.states import message_text, state_name, task_text


def _start(store: Path) -> tuple[subprocess.Popen[str], str, str]:
    """The server on a free port, recording into `store`; it, its URL and its token."""
    port = free_port()
    command = ["a2a", "serve", str(TEAM), "--port", str(port), "--store", str(store)]
    process = subprocess.Popen(
        [sys.executable, "-m", "retinue", *command], stderr=subprocess.PIPE, text=True
    )
    lines = lines_until(process.stderr, f"Uvicorn running on http://127.0.0.1:{port}")
    banner = next(line for line in lines if "A2A agent" in line)
    return process, f"http://127.0.0.1:{port}/", banner.rsplit(" ", 1)[-1].strip().rstrip(")")


def _stop(process: subprocess.Popen[str], how: signal.Signals) -> int:
    process.send_signal(how)
    return process.wait(TIMEOUT)


async def _before(url: str, token: str) -> dict[str, str]:
    """A task answered in one context, a task paused on a question in another."""
    async with client(url, token, streaming=False) as sender:
        [done] = [e async for e in sender.send_message(user_message("six times seven"))]
        [paused] = [e async for e in sender.send_message(user_message("ask me something"))]
    return {
        "done": done.task.id,
        "context": done.task.context_id,
        "done_state": state_name(done.task.status.state),
        "paused": paused.task.id,
        "paused_context": paused.task.context_id,
        "paused_state": state_name(paused.task.status.state),
    }


async def _after(url: str, token: str, before: dict[str, str]) -> dict[str, object]:
    seen: dict[str, object] = {}
    async with client(url, token, streaming=False) as sender:
        old = await sender.get_task(GetTaskRequest(id=before["done"]))
        seen["old"] = (state_name(old.status.state), task_text(old))
        seen["old_asked"] = [message_text(m) for m in old.history if m.role == Role.ROLE_USER]
        seen["old_usage"] = dict(old.metadata).get("retinue.usage")
        listed = await sender.list_tasks(ListTasksRequest(context_id=before["context"]))
        seen["listed"] = [(t.id, state_name(t.status.state)) for t in listed.tasks]
        everything = await sender.list_tasks(ListTasksRequest())
        seen["all"] = sorted(t.id for t in everything.tasks)
        # The same context: its team comes back from the record and remembers.
        [again] = [
            e
            async for e in sender.send_message(
                user_message("what did I ask?", context_id=before["context"])
            )
        ]
        seen["again"] = (again.task.context_id, task_text(again.task))
        # The paused task: the client's answer goes on in it.
        [answered] = [
            e
            async for e in sender.send_message(
                user_message("red", context_id=before["paused_context"], task_id=before["paused"])
            )
        ]
        seen["answered"] = (state_name(answered.task.status.state), task_text(answered.task))
        # A context never seen: a team of its own, which knows nothing earlier.
        [fresh] = [
            e
            async for e in sender.send_message(
                user_message("what did I ask?", context_id="a-context-never-seen")
            )
        ]
        seen["fresh"] = task_text(fresh.task)
    return seen


@pytest.mark.parametrize("how", [signal.SIGTERM, signal.SIGKILL], ids=["sigterm", "sigkill"])
def test_a_restarted_server_answers_old_tasks_and_goes_on_in_old_contexts(
    tmp_path: Path, how: signal.Signals
) -> None:
    store = tmp_path / "teams.sqlite"
    process, url, token = _start(store)
    try:
        before = asyncio.run(asyncio.wait_for(_before(url, token), 4 * TIMEOUT))
    finally:
        status = _stop(process, how)
    assert status == (0 if how == signal.SIGTERM else -signal.SIGKILL)
    assert (before["done_state"], before["paused_state"]) == ("completed", "input-required")

    process, url, token = _start(store)
    try:
        seen = asyncio.run(asyncio.wait_for(_after(url, token, before), 4 * TIMEOUT))
    finally:
        assert _stop(process, signal.SIGTERM) == 0

    assert seen["old"] == ("completed", "The team's answer: SIX TIMES SEVEN = 42")
    assert seen["old_asked"] == ["six times seven"]
    assert seen["old_usage"] is not None
    assert seen["listed"] == [(before["done"], "completed")]
    assert before["done"] in seen["all"]  # type: ignore[operator]
    assert before["paused"] in seen["all"]  # type: ignore[operator]
    assert seen["again"] == (before["context"], "You asked: six times seven")
    assert seen["answered"] == ("completed", "The team's answer: RED = 42")
    assert seen["fresh"] == "You asked: what did I ask?"
    with open_store(store) as record:  # one team per context: two before, one new after
        contexts = [
            info.team_id
            for info in record.list_teams()
            if next(iter(record.read(info.team_id, kinds=[CONTEXT_KIND])), None) is not None
        ]
    assert len(contexts) == 3


async def _start_working(url: str, token: str) -> str:
    """A task whose Helper's model call never ends; its id once it is `working`."""
    async with client(url, token, streaming=True) as streamer:
        async for event in streamer.send_message(user_message("wait until stopped")):
            if event.HasField("status_update"):
                assert state_name(event.status_update.status.state) == "working"
                return event.status_update.task_id
    raise AssertionError("the stream ended before the task worked")


async def _get(url: str, token: str, task_id: str) -> tuple[str, str]:
    async with client(url, token, streaming=False) as sender:
        task = await sender.get_task(GetTaskRequest(id=task_id))
    return state_name(task.status.state), task_text(task)


def test_a_task_a_kill_cut_short_is_failed_after_the_restart(tmp_path: Path) -> None:
    store = tmp_path / "teams.sqlite"
    process, url, token = _start(store)
    try:
        task_id = asyncio.run(asyncio.wait_for(_start_working(url, token), 4 * TIMEOUT))
    finally:
        _stop(process, signal.SIGKILL)

    process, url, token = _start(store)
    try:
        got = asyncio.run(asyncio.wait_for(_get(url, token, task_id), 4 * TIMEOUT))
    finally:
        assert _stop(process, signal.SIGTERM) == 0

    assert got == ("failed", CUT_SHORT)
