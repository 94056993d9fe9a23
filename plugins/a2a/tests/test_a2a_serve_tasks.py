"""A served team in process (the command's own app on a free port): a task cancelled
mid-work stops its chain; a question to the person pauses a task until the client answers."""

from __future__ import annotations

import asyncio
import importlib
from collections.abc import Iterator

import pytest
from a2a.types.a2a_pb2 import CancelTaskRequest, GetTaskRequest
from a2a_helpers import TEAM, TIMEOUT, client, free_port, serving, user_message
from retinue import ActorSystem
from retinue.teamfile import load_team_file
from retinue_a2a.app import build_app
from retinue_a2a.conversations import Conversations
from retinue_a2a.states import message_text, state_name, task_text

TOKEN = "test-token"


@pytest.fixture
def served() -> Iterator[tuple[str, Conversations]]:
    system = ActorSystem()
    conversations = Conversations(load_team_file(TEAM), system=system)
    port = free_port()
    try:
        with serving(build_app(conversations, port=port, token=TOKEN), port) as url:
            yield url, conversations
    finally:
        system.shutdown(30)


def test_cancelling_a_task_mid_work_stops_its_chain(
    served: tuple[str, Conversations],
) -> None:
    url, conversations = served
    script = importlib.import_module("a2a_script")  # the team file's folder is on the path
    script.WAITING.clear()
    script.STOPPED.clear()

    async def scenario() -> tuple[list[str], str, str]:
        async with client(url, TOKEN, streaming=True) as streamer:
            states: list[str] = []
            task_id = ""
            async for event in streamer.send_message(user_message("wait until stopped")):
                if event.HasField("task"):
                    task_id = event.task.id
                if event.HasField("status_update"):
                    task_id = event.status_update.task_id
                    states.append(state_name(event.status_update.status.state))
                    # The Helper's model call is in flight: now the cancel has work to stop.
                    if await asyncio.to_thread(script.WAITING.wait, TIMEOUT):
                        break
            cancelled = await streamer.cancel_task(CancelTaskRequest(id=task_id))
            got = await streamer.get_task(GetTaskRequest(id=task_id))
            return states, state_name(cancelled.status.state), state_name(got.status.state)

    states, cancelled, got = asyncio.run(asyncio.wait_for(scenario(), 4 * TIMEOUT))
    assert states[0] == "working"
    assert (cancelled, got) == ("canceled", "canceled")
    assert script.STOPPED.wait(TIMEOUT)  # the Helper's model call was interrupted
    [conversation] = conversations.all()
    conversation.running.wait_idle(TIMEOUT)
    roster = {m.name: m.busy for m in conversation.running.team.get_team()}
    assert roster["@Helper"] is False


def test_a_question_to_the_person_pauses_the_task_until_the_client_answers(
    served: tuple[str, Conversations],
) -> None:
    url, _ = served

    async def scenario() -> tuple[str, str, str, str]:
        async with client(url, TOKEN, streaming=False) as sender:
            [first] = [e async for e in sender.send_message(user_message("ask me something"))]
            task = first.task
            asked = (state_name(task.status.state), message_text(task.status.message))
            [second] = [
                e
                async for e in sender.send_message(
                    user_message("red", context_id=task.context_id, task_id=task.id)
                )
            ]
            return *asked, state_name(second.task.status.state), task_text(second.task)

    asked_state, question, state, answer = asyncio.run(asyncio.wait_for(scenario(), 4 * TIMEOUT))
    assert (asked_state, question) == ("input-required", "@Lead: Which colour?")
    assert (state, answer) == ("completed", "The team's answer: RED = 42")


def test_a_client_of_a2a_0_3_is_answered_on_the_same_endpoint(
    served: tuple[str, Conversations],
) -> None:
    import httpx

    url, _ = served
    call = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "message/send",
        "params": {
            "message": {
                "role": "user",
                "parts": [{"kind": "text", "text": "two"}],
                "messageId": "m1",
            }
        },
    }
    answer = httpx.post(
        url, json=call, headers={"Authorization": f"Bearer {TOKEN}"}, timeout=TIMEOUT
    ).json()["result"]

    assert answer["kind"] == "task"
    assert answer["status"]["state"] == "completed"
    assert answer["status"]["message"]["parts"] == [
        {"kind": "text", "text": "The team's answer: TWO = 42"}
    ]
