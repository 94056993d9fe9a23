"""`retinue a2a serve` as a real subprocess, driven by the a2a-sdk's own client."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

import httpx
import pytest
from a2a.client import A2ACardResolver
from a2a.types.a2a_pb2 import GetTaskRequest, ListTasksRequest
from a2a_helpers import TEAM, TIMEOUT, client, free_port, user_message
from retinue.testing import lines_until
from retinue_a2a.states import message_text, state_name, task_text


async def _drive(url: str, token: str) -> dict[str, object]:
    seen: dict[str, object] = {}
    async with httpx.AsyncClient(timeout=TIMEOUT) as anonymous:
        card = await A2ACardResolver(anonymous, url).get_agent_card()  # public, as the spec says
        seen["card"] = card
        refused = await anonymous.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "GetTask"})
        seen["refused"] = (refused.status_code, refused.text)

    async with client(url, token, streaming=False) as sender:
        events = [e async for e in sender.send_message(user_message("six times seven"))]
        task = events[-1].task
        seen["send"] = (len(events), state_name(task.status.state), task_text(task))
        seen["usage"] = dict(task.metadata)
        again = [
            e
            async for e in sender.send_message(
                user_message("what did I ask?", context_id=task.context_id)
            )
        ]
        seen["again"] = task_text(again[-1].task)
        got = await sender.get_task(GetTaskRequest(id=task.id))
        seen["get"] = (state_name(got.status.state), task_text(got))
        listed = await sender.list_tasks(ListTasksRequest(context_id=task.context_id))
        seen["list"] = sorted(task_text(t) for t in listed.tasks)

    async with client(url, token, streaming=True) as streamer:
        updates: list[tuple[str, str]] = []
        async for event in streamer.send_message(user_message("seven times six")):
            if event.HasField("status_update"):
                status = event.status_update.status
                updates.append((state_name(status.state), message_text(status.message)))
        seen["stream"] = updates
    return seen


def test_a_client_reads_the_card_sends_streams_and_goes_on_in_a_context(tmp_path: Path) -> None:
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "retinue", "a2a", "serve", str(TEAM), "--port", str(port)],
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        lines = lines_until(process.stderr, f"Uvicorn running on http://127.0.0.1:{port}")
        banner = next(line for line in lines if "A2A agent" in line)
        assert f"team 'relay', A2A agent http://127.0.0.1:{port}/ (bearer token " in banner
        token = banner.rsplit(" ", 1)[-1].strip().rstrip(")")
        seen = asyncio.run(
            asyncio.wait_for(_drive(f"http://127.0.0.1:{port}/", token), 4 * TIMEOUT)
        )
    finally:
        process.terminate()
        process.wait(30)

    card = seen["card"]
    assert card.name == "relay"  # type: ignore[attr-defined]
    assert card.description == "A lead who has a helper work out answers"  # type: ignore[attr-defined]
    assert [s.id for s in card.skills] == ["arithmetic", "relaying"]  # type: ignore[attr-defined]
    assert card.capabilities.streaming  # type: ignore[attr-defined]
    assert "bearer" in card.security_schemes  # type: ignore[attr-defined]
    assert seen["refused"] == (
        401,
        "this agent needs the bearer token `retinue a2a serve` printed\n",
    )
    assert seen["send"] == (1, "completed", "The team's answer: SIX TIMES SEVEN = 42")
    assert seen["again"] == "You asked: six times seven"
    assert seen["get"] == ("completed", "The team's answer: SIX TIMES SEVEN = 42")
    assert seen["list"] == ["The team's answer: SIX TIMES SEVEN = 42", "You asked: six times seven"]
    assert "retinue.usage" in seen["usage"]  # type: ignore[operator]
    stream = seen["stream"]
    assert isinstance(stream, list)
    assert stream[0] == ("working", "")
    assert ("working", "@Lead: @Lead -> @Helper (request): seven times six") in stream
    assert ("working", "@Helper: @Helper -> @Lead (response): SEVEN TIMES SIX = 42") in stream
    assert stream[-1] == ("completed", "The team's answer: SEVEN TIMES SIX = 42")
    assert process.returncode == 0


def test_a_bad_team_file_or_port_is_one_line_and_exit_status_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from retinue.cli.main import main

    assert main(["a2a", "serve", str(tmp_path / "missing.toml")]) == 1
    assert main(["a2a", "serve", str(TEAM), "--port", "70000"]) == 1
    lines = capsys.readouterr().err.strip().splitlines()
    assert all(line.startswith("retinue a2a serve: ") for line in lines)
    assert "missing.toml" in lines[0]
    assert lines[-1] == "retinue a2a serve: --port must be 1-65535, got 70000"
