"""The AG-UI stream of a live team, read as an AG-UI client reads it: each Server-Sent Event
parsed and validated by `ag_ui.core`'s own types, over a real team on scripted models."""

from __future__ import annotations

import http.client
import json
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from ag_ui.core import (
    BaseEvent,
    CustomEvent,
    Event,
    EventType,
    Interrupt,
    RunErrorEvent,
    RunFinishedEvent,
    RunFinishedInterruptOutcome,
    StateDeltaEvent,
    StateSnapshotEvent,
    TextMessageContentEvent,
    TextMessageStartEvent,
    ToolCallArgsEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
)
from pydantic import TypeAdapter
from pydantic_ai.messages import ModelMessage, ModelResponse, ToolReturnPart
from pydantic_ai.models.function import AgentInfo
from retinue import AgentCard, AgentMessage, SentMessage
from retinue.testing import (
    PingTool,
    TeamHarness,
    call_tool,
    incoming,
    run_messages,
    scripted_card,
    send,
)
from retinue_web import WebView
from retinue_web.agui_events import args_json
from retinue_web.agui_state import diff
from retinue_web.delta import TEXT_LIMIT
from web_helpers import HOLDING, SESSIONS, TIMEOUT, act, request

EVENT: TypeAdapter[Any] = TypeAdapter(Event)


async def lead(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """`delegate ...`: ping, then hand it to a Worker (hired); `fail`: the turn fails;
    anything else is echoed. A Worker's answer goes up to the person."""
    got = incoming(messages)
    if got.sender == "@Human" and got.content.startswith("fail"):
        raise RuntimeError("the lead's model broke")
    if got.sender == "@Human" and got.content.startswith("delegate"):
        pinged = any(
            isinstance(part, ToolReturnPart)
            for message in run_messages(messages)
            for part in getattr(message, "parts", [])
        )
        if not pinged:
            return call_tool("ping")
        return send(info, ("Worker", "request", f"work on: {got.content}"))
    if got.sender == "@Human":
        return send(info, ("@Human", "response", f"echo: {got.content}"))
    return send(info, ("@Human", "response", f"done: {got.content}"))


@pytest.fixture
def lead_role() -> tuple[AgentCard, Any]:
    """The Lead of `team` (conftest.py): with a tool, on this module's `lead` model."""
    return scripted_card("Lead", tools=[PingTool()]), lead


def run_input(run_id: str, *texts: str, **extra: Any) -> dict[str, Any]:
    """A `RunAgentInput` as a client sends it: the thread's messages, the person's last."""
    messages = [{"id": f"u{i}", "role": "user", "content": t} for i, t in enumerate(texts)]
    return {
        "threadId": "thread-1",
        "runId": run_id,
        "state": {},
        "messages": messages,
        "tools": [],
        "context": [],
        "forwardedProps": {},
        **extra,
    }


@contextmanager
def held_run(view: WebView) -> Iterator[Future[list[BaseEvent]]]:
    """A run whose Worker is in its model request, which holds until stopped; its events
    come when it ends."""
    with ThreadPoolExecutor(1) as pool:
        running = pool.submit(ag_ui_run, view.port, run_input("run-1", "delegate and hold on"))
        assert HOLDING.wait(TIMEOUT)
        yield running


def the_interrupt(events: list[BaseEvent]) -> Interrupt:
    """The one interrupt the run of `events` paused on (its last event)."""
    finished = events[-1]
    assert isinstance(finished, RunFinishedEvent)
    assert isinstance(finished.outcome, RunFinishedInterruptOutcome)
    (interrupt,) = finished.outcome.interrupts
    return interrupt


def ag_ui_run(port: int, body: dict[str, Any], path: str = "/ag-ui") -> list[BaseEvent]:
    """POST a run and read its stream to the end, each event validated by `ag_ui.core`."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=TIMEOUT)
    headers = {
        "Content-Type": "application/json",
        "Accept": "text/event-stream",
        "Cookie": SESSIONS[port],
    }
    try:
        connection.request("POST", path, body=json.dumps(body).encode(), headers=headers)
        response = connection.getresponse()
        assert response.status == 200, response.read()
        assert response.getheader("content-type", "").startswith("text/event-stream")
        events: list[BaseEvent] = []
        while line := response.readline():
            text = line.decode().rstrip("\n")
            if text.startswith("data: "):
                events.append(EVENT.validate_json(text[6:]))
        return events
    finally:
        connection.close()


def kinds(events: list[BaseEvent]) -> list[str]:
    """The event types in order, a custom event as its name; state deltas left out."""
    return [
        e.name if isinstance(e, CustomEvent) else e.type.value
        for e in events
        if not isinstance(e, StateDeltaEvent)
    ]


def applied(events: list[BaseEvent]) -> dict[str, Any]:
    """The state a client holds at the end: the snapshot with every delta applied."""
    (snapshot,) = [e for e in events if isinstance(e, StateSnapshotEvent)]
    state: dict[str, Any] = json.loads(json.dumps(snapshot.snapshot))
    for event in events:
        if isinstance(event, StateDeltaEvent):
            for op in event.model_dump(by_alias=True)["delta"]:
                *parents, last = [
                    t.replace("~1", "/").replace("~0", "~") for t in op["path"].split("/")[1:]
                ]
                target = state
                for token in parents:
                    target = target[token]
                if op["op"] == "remove":
                    del target[last]
                else:
                    target[last] = op["value"]
    return state


def said_by_person(team: TeamHarness) -> list[AgentMessage]:
    return [
        m.message
        for m in team.recorder.messages
        if isinstance(m, SentMessage)
        and isinstance(m.message, AgentMessage)
        and m.message.sender is not None
        and m.message.sender.name == "@Human"
    ]


def test_one_request_streams_its_run_and_reaches_the_entry_agent(
    team: TeamHarness, view: WebView
) -> None:
    events = ag_ui_run(view.port, run_input("run-1", "delegate the count"))

    assert kinds(events) == [
        "RUN_STARTED",
        "STATE_SNAPSHOT",
        "TOOL_CALL_START",
        "TOOL_CALL_ARGS",
        "TOOL_CALL_END",
        "TOOL_CALL_RESULT",
        "retinue.hire",
        "retinue.message",
        "retinue.message",
        "TEXT_MESSAGE_START",
        "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_END",
        "RUN_FINISHED",
    ]
    started, finished = events[0], events[-1]
    assert (started.thread_id, started.run_id) == ("thread-1", "run-1")  # type: ignore[attr-defined]
    assert isinstance(finished, RunFinishedEvent) and finished.run_id == "run-1"
    assert finished.outcome is not None and finished.outcome.type == "success"
    (person,) = said_by_person(team)  # the input's last message, said to the entry agent
    assert (person.recipient.name, person.content) == ("@Lead", "delegate the count")  # type: ignore[union-attr]
    (start,) = [e for e in events if isinstance(e, TextMessageStartEvent)]
    (content,) = [e for e in events if isinstance(e, TextMessageContentEvent)]
    assert (start.role, start.name) == ("assistant", "@Lead")
    assert content.delta == "done: result of work on: delegate the count"
    (call,) = [e for e in events if isinstance(e, ToolCallStartEvent)]
    (args,) = [e for e in events if isinstance(e, ToolCallArgsEvent)]
    (result,) = [e for e in events if isinstance(e, ToolCallResultEvent)]
    assert call.tool_call_name == "ping" and call.metadata == {"retinue": {"member": "@Lead"}}
    assert json.loads(args.delta) == {}
    assert (result.tool_call_id, result.content) == (call.tool_call_id, "pong")
    hops = [e.value for e in events if isinstance(e, CustomEvent) and e.name.endswith("message")]
    assert [(h["from"], h["to"], h["intent"]) for h in hops] == [
        ("@Lead", "@Worker", "request"),
        ("@Worker", "@Lead", "response"),
    ]
    snapshot = events[1]
    assert isinstance(snapshot, StateSnapshotEvent)
    assert "@Worker" not in snapshot.snapshot["members"]
    final = applied(events)
    assert final["members"]["@Worker"]["hired_by"] == "@Lead"
    assert {m["state"] for m in final["members"].values()} == {"idle"}
    _, shot = request(view.port, "GET", f"/api/teams/{view.live_id}/snapshot")
    rows = {m["name"]: m for m in shot["members"]}
    assert final["members"] == rows  # the patches end where the page's roster is


def test_a_second_run_in_the_same_thread_goes_on_with_the_team(
    team: TeamHarness, view: WebView
) -> None:
    first = ag_ui_run(view.port, run_input("run-1", "delegate the count"))
    second = ag_ui_run(
        view.port, run_input("run-2", "delegate the count", "hello again", parentRunId="run-1")
    )

    assert kinds(second) == [
        "RUN_STARTED",
        "STATE_SNAPSHOT",
        "TEXT_MESSAGE_START",
        "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_END",
        "RUN_FINISHED",
    ]
    assert second[0].parent_run_id == "run-1"  # type: ignore[attr-defined]
    snapshot = second[1]
    assert isinstance(snapshot, StateSnapshotEvent)
    assert snapshot.snapshot == applied(first) | {"members": snapshot.snapshot["members"]}
    assert "@Worker" in snapshot.snapshot["members"]  # the team the first run left
    (content,) = [e for e in second if isinstance(e, TextMessageContentEvent)]
    assert content.delta == "echo: hello again"
    assert [m.content for m in said_by_person(team)] == ["delegate the count", "hello again"]


def test_a_failing_entry_member_ends_the_run_with_an_error(
    team: TeamHarness, view: WebView
) -> None:
    events = ag_ui_run(view.port, run_input("run-1", "fail now"))

    assert kinds(events)[-4:] == [
        "TEXT_MESSAGE_START",
        "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_END",
        "RUN_ERROR",
    ]
    assert not any(e.type == EventType.RUN_FINISHED for e in events)
    error = events[-1]
    assert isinstance(error, RunErrorEvent) and error.code == "failed"
    (start,) = [e for e in events if isinstance(e, TextMessageStartEvent)]
    assert start.metadata is not None and start.metadata["retinue"]["failure"]["member"] == "@Lead"
    assert "@Lead" in error.message


def test_a_run_to_another_member_by_forwarded_props(team: TeamHarness, view: WebView) -> None:
    body = run_input("run-1", "add these", forwardedProps={"to": "@Lead"})
    path = f"/api/teams/{view.live_id}/ag-ui"

    events = ag_ui_run(view.port, body, path)

    (content,) = [e for e in events if isinstance(e, TextMessageContentEvent)]
    assert content.delta == "echo: add these"


def test_a_run_is_refused_without_the_session_from_another_site_or_when_malformed(
    team: TeamHarness, view: WebView
) -> None:
    body = run_input("run-1", "hello")
    json_type = {"Content-Type": "application/json"}

    anonymous = request(view.port, "POST", "/ag-ui", body, {**json_type, "Cookie": "x=y"})
    forged = request(view.port, "POST", "/ag-ui", body, {"Sec-Fetch-Site": "cross-site"})
    no_thread = request(view.port, "POST", "/ag-ui", {**body, "threadId": None})
    answer_last = {**body, "messages": [{"id": "a", "role": "assistant", "content": "hi"}]}
    not_person = request(view.port, "POST", "/ag-ui", answer_last)
    nobody = request(view.port, "POST", "/ag-ui", {**body, "forwardedProps": {"to": "@Nobody"}})

    assert anonymous[0] == 401 and forged[0] == 403
    wrong = "not an AG-UI run input: threadId: Input should be a valid string"
    assert no_thread == (400, {"error": wrong})
    assert not_person == (
        400,
        {"error": "the run input's last message must be the person's (role user)"},
    )
    assert nobody == (400, {"error": "no member of this team is called @Nobody"})
    assert said_by_person(team) == []  # nothing reached the team


def test_arguments_stay_json_when_cut_and_patches_escape_keys() -> None:
    long = {"text": "x" * (TEXT_LIMIT + 10)}
    cut = json.loads(args_json(long))
    assert set(cut) == {"cut", "more"} and len(cut["cut"]) == TEXT_LIMIT
    assert json.loads(args_json({"a": 1})) == {"a": 1}
    old = {"approvals": {"@W/1": {"id": "1"}}, "members": {"@A": {"state": "idle"}}}
    new = {"approvals": {}, "members": {"@A": {"state": "working"}, "@B": {"state": "idle"}}}
    assert diff(old, new) == [
        {"op": "remove", "path": "/approvals/@W~11"},
        {"op": "replace", "path": "/members/@A/state", "value": "working"},
        {"op": "add", "path": "/members/@B", "value": {"state": "idle"}},
    ]


def test_a_stop_of_the_run_s_work_finishes_it_as_cancelled(
    team: TeamHarness, view: WebView
) -> None:
    with held_run(view) as running:
        status, _ = act(view, "stop", {"member": "@Worker"})
        events = running.result(TIMEOUT)

    assert status == 200
    finished = events[-1]
    assert isinstance(finished, RunFinishedEvent)
    assert finished.outcome is not None and finished.outcome.type == "cancelled"
    (stop,) = [e for e in events if isinstance(e, CustomEvent) and e.name == "retinue.stop"]
    assert stop.value["members"] == ["@Worker"]


def test_a_call_waiting_for_the_person_is_an_interrupt_a_resume_answers(
    writer_team: TeamHarness, writer_view: WebView, tmp_path: Path
) -> None:
    port, to_writer = writer_view.port, {"forwardedProps": {"to": "@Writer"}}

    asked = ag_ui_run(port, run_input("run-1", "write a.txt: hi", **to_writer))
    resolved = {"interruptId": "@Writer/1", "status": "resolved", "payload": {"approved": True}}
    resumed = ag_ui_run(port, run_input("run-2", "write a.txt: hi", resume=[resolved]))

    waiting = the_interrupt(asked)
    assert (waiting.id, waiting.reason) == ("@Writer/1", "tool_call")
    assert waiting.message == 'Approve workspace_write({"path": "a.txt", "content": "hi"})?'
    assert list(applied(asked)["approvals"]) == ["@Writer/1"]
    texts = [e.delta for e in resumed if isinstance(e, TextMessageContentEvent)]
    assert texts[0].startswith("Approved") and texts[-1].startswith("tool said: ")
    last = resumed[-1]
    assert isinstance(last, RunFinishedEvent) and last.outcome is not None
    assert last.outcome.type == "success"
    assert applied(resumed)["approvals"] == {}
    assert (tmp_path / "a.txt").read_text() == "hi"


def test_a_question_is_an_interrupt_with_its_choices_a_cancel_denies_it(
    writer_team: TeamHarness, writer_view: WebView
) -> None:
    port, to_writer = writer_view.port, {"forwardedProps": {"to": "@Writer"}}

    asked = ag_ui_run(port, run_input("run-1", "ask", **to_writer))
    wrong = {"interruptId": "@Writer/1", "status": "resolved", "payload": {"approved": True}}
    refused = request(port, "POST", "/ag-ui", run_input("run-2", "ask", resume=[wrong]))
    cancelled = {"interruptId": "@Writer/1", "status": "cancelled"}
    resumed = ag_ui_run(port, run_input("run-3", "ask", resume=[cancelled]))

    question = the_interrupt(asked)
    assert (question.reason, question.message) == ("question", "Which colour?")
    assert question.response_schema is not None
    assert question.response_schema["properties"]["answer"]["enum"] == ["red", "blue"]
    needs = "the answer to '@Writer/1' needs its answer (payload.answer)"
    assert refused == (400, {"error": needs})
    texts = [e.delta for e in resumed if isinstance(e, TextMessageContentEvent)]
    assert texts[-1].startswith("tool said: ") and "cancelled by the person" in texts[-1]


def test_a_team_shut_down_under_a_run_ends_it_with_an_error(
    team: TeamHarness, view: WebView
) -> None:
    with held_run(view) as running:
        team.shutdown()
        events = running.result(TIMEOUT)

    error = events[-1]
    assert isinstance(error, RunErrorEvent) and error.code == "team_stopped"
    assert not any(e.type == EventType.RUN_FINISHED for e in events)


def test_a_hostile_input_is_refused_in_one_bounded_line(team: TeamHarness, view: WebView) -> None:
    role = "x" * 100_000
    body = run_input("run-1", "hi") | {"messages": [{"id": "m", "role": role, "content": "hi"}]}

    status, answer = request(view.port, "POST", "/ag-ui", body)
    too_big = request(view.port, "POST", "/ag-ui", run_input("run-1", "y" * 2_000_000))

    assert status == 400 and answer["error"].startswith("not an AG-UI run input: messages.0")
    assert len(answer["error"]) < 400
    assert too_big == (400, {"error": "the body is larger than 1048576 bytes"})
    assert said_by_person(team) == []
