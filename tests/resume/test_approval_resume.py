"""A parked call's options across a shutdown and a resume: its timeout goes on from when it
was first asked (not from the resume), and its reviewer may still answer."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

import pytest
from approval_writers import recorded, to_human, writer_card
from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models.function import AgentInfo
from retinue import AgentConfig, AgentMessage, PendingCall, ToolApprovalAskedEvent
from retinue.testing import TeamHarness, call_tool, run_messages, scripted_card, send, tool_returns

pytest.importorskip("retinue_workspace", reason="the parked call is a workspace write")


def reviewer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    return send(info)  # says nothing before the shutdown; answers after the resume (below)


def person_heard(where: str, team_id: str) -> list[str]:
    """What the person was told, as the record has it (both runs of the team)."""
    return to_human(recorded(where, team_id))


def timer_of(name: str, call_id: str) -> threading.Timer:
    (timer,) = [
        thread
        for thread in threading.enumerate()
        if thread.name == f"retinue-approval-{name}-{call_id}"
    ]
    assert isinstance(timer, threading.Timer)
    return timer


def test_a_resumed_timeout_counts_from_the_first_ask_and_a_reviewer_still_answers(
    where: str, resumed: Any, tmp_path: Path
) -> None:
    first = TeamHarness(store=where)
    rule = {"rule": "workspace.write*", "reviewer": "@Reviewer", "timeout": 600}
    card = writer_card(tmp_path, [rule])
    first.add(scripted_card("Reviewer", "tests.resume.test_approval_resume:reviewer"))
    writer_address = first.add(card)
    first.say(writer_address, "write it")
    first.wait_idle()
    (asked,) = first.events(ToolApprovalAskedEvent)
    (call,) = asked.calls
    assert isinstance(call, PendingCall) and call.reviewer == "@Reviewer"
    assert call.asked_at is not None
    team_id = first.team_id
    assert first.shutdown()

    team, _ = resumed(team_id)
    team.system.wait_idle(30)
    timer = timer_of("@Writer", "1")
    assert timer.interval <= 600 - (time.time() - call.asked_at) + 1  # not 600 again
    # The reviewer, resumed too, answers now: its answer is honoured.
    team.system.send(
        team.roster["@Writer"],
        AgentMessage(content="/approve 1 fine", type="response"),
        sender=team.roster["@Reviewer"],
    )
    team.system.wait_idle(30)
    timer.join(30)
    assert not timer.is_alive()  # answered: its timeout cancelled
    assert (tmp_path / "out.txt").read_text() == "hello"
    told = person_heard(where, team_id)
    first_ask, ask_again, verdict, done = told
    assert first_ask == ask_again and "@Reviewer is asked to review it" in ask_again
    assert verdict == "@Reviewer for @Writer: Approved workspace_write (call 1). The run goes on."
    assert done.startswith("wrote: Created out.txt")


def asker(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    returns = tool_returns(run_messages(messages))
    if returns:
        return send(info, ("@Human", "response", f"got: {returns[-1].content}"))
    return call_tool("ask_person", {"question": "Which colour?", "choices": ["red", "blue"]})


def test_a_question_waiting_alone_is_asked_again_after_a_resume(where: str, resumed: Any) -> None:
    first = TeamHarness(store=where)
    card = scripted_card("Asker", "tests.resume.test_approval_resume:asker")
    assert isinstance(card.config, AgentConfig)
    card.config.ask_person = True
    first.say(first.add(card), "pick a colour")
    first.wait_idle()
    team_id = first.team_id
    assert first.shutdown()

    team, _ = resumed(team_id)
    team.system.wait_idle(30)
    team.send("/answer 1 red", to=team.roster["@Asker"])
    team.system.wait_idle(30)
    told = person_heard(where, team_id)
    asked = (
        "@Asker waits for you (answer @Asker with /answer ID TEXT, or /deny ID REASON):\n"
        "  [1] asks: Which colour? (one of: red, blue), for @Human"
    )
    assert told == [asked, asked, "Answered call 1. The run goes on.", "got: red"]


def parked_on_two_writes(where: str, root: Path) -> str:
    """A team on `where` whose @Writer waits on two writes, the first approved; its id once
    it has stopped."""
    first = TeamHarness(store=where)
    writer = first.add(writer_card(root, ["workspace.write*"], "two_writes"))
    first.say(writer, "write both")
    first.wait_idle()
    assert first.command(writer, "/approve 1").startswith("Approved workspace_write (call 1).")
    assert not (root / "a.txt").exists()  # the run waits for every answer
    assert first.shutdown()
    return first.team_id


def test_a_call_approved_before_a_restart_runs_with_the_rest_after_it(
    where: str, resumed: Any, tmp_path: Path
) -> None:
    team_id = parked_on_two_writes(where, tmp_path)

    team, _ = resumed(team_id)
    team.system.wait_idle(30)
    team.send("/approve 2", to=team.roster["@Writer"])
    team.system.wait_idle(30)

    assert (tmp_path / "a.txt").read_text() == "A" and (tmp_path / "b.txt").read_text() == "B"
    assert person_heard(where, team_id)[-1].startswith("Created a.txt")
