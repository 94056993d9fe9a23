"""Tool calls that wait for the person's yes: a real team, a scripted model, the workspace.

The Writer's model writes `out.txt` through the workspace card whenever the person asks it
to write; under the policy `workspace.write*` its run parks instead, until the person's
`/approve` or `/deny`. Any other request it answers at once with the request's text.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from agent_cards import card
from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models.function import AgentInfo
from retinue import ActorAddress, AgentConfig, CommandsAnnouncedEvent
from retinue.testing import TeamHarness, call_tool, incoming, run_messages, send, tool_returns

WorkspaceTool = pytest.importorskip(
    "retinue_workspace", reason="the writer's tool needs retinue-workspace"
).WorkspaceTool


def writer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    asked = incoming(messages)
    if asked.content != "write it":
        return send(info, ("@Human", "response", f"answered: {asked.content}"))
    returns = tool_returns(run_messages(messages))
    if returns:
        return send(info, ("@Human", "response", f"wrote: {returns[-1].content}"))
    return call_tool("workspace_write", {"path": "out.txt", "content": "hello"})


@pytest.fixture
def team() -> Iterator[TeamHarness]:
    harness = TeamHarness()
    try:
        yield harness
    finally:
        harness.shutdown()


def start_writer(team: TeamHarness, root: Path) -> ActorAddress:
    writer_card = card("Writer", tools=[WorkspaceTool(root=root, per_team=False)])
    config = writer_card.config
    assert isinstance(config, AgentConfig)
    config.approve.append("workspace.write*")
    return team.add(writer_card, model=writer)


def told(team: TeamHarness, start: int = 0) -> list[str]:
    return [m.content for m in team.received_by("@Human")[start:]]


def parked(team: TeamHarness, writer: ActorAddress) -> None:
    team.say(writer, "write it")
    team.wait_idle()
    (asked,) = told(team)
    assert asked.startswith("@Writer waits for your approval")
    assert '[1] workspace_write({"path": "out.txt", "content": "hello"})' in asked


def test_nothing_is_written_until_the_person_approves(team: TeamHarness, tmp_path: Path) -> None:
    writer = start_writer(team, tmp_path)
    parked(team, writer)
    assert not (tmp_path / "out.txt").exists()

    team.say(writer, "/approve 1 fine by me")
    team.wait_idle()
    assert (tmp_path / "out.txt").read_text() == "hello"
    approved, done = told(team, 1)
    assert approved == "Approved workspace_write (call 1). The run goes on."
    assert done.startswith("wrote: ") and "out.txt" in done
    assert team.tool_results("@Writer") == [done.removeprefix("wrote: ")]


def test_a_denial_reaches_the_model_with_its_reason(team: TeamHarness, tmp_path: Path) -> None:
    writer = start_writer(team, tmp_path)
    parked(team, writer)

    team.say(writer, "/deny 1 because the file is mine")
    team.wait_idle()
    assert not (tmp_path / "out.txt").exists()
    denied, done = told(team, 1)
    assert denied == "Denied workspace_write (call 1). The run goes on."
    refusal = "The person denied this tool call: because the file is mine"
    assert done == f"wrote: {refusal}"
    last_request = team.model_requests("@Writer")[-1]
    assert [part.content for part in tool_returns(last_request)][-1] == refusal
    # Strict answers: the call is no longer pending.
    assert team.command(writer, "/approve 1") == (
        "/approve 1: refused, that call is no longer pending (already denied)."
    )
    assert team.command(writer, "/deny 7 no") == (
        "/deny 7: refused, no call 7 was asked for here; pending: none."
    )


def test_a_parked_agent_answers_commands_at_once_and_holds_other_mail(
    team: TeamHarness, tmp_path: Path
) -> None:
    writer = start_writer(team, tmp_path)
    parked(team, writer)
    team.say(writer, "first")
    team.say(writer, "second")
    team.wait_idle()
    assert len(told(team)) == 1  # held: nothing answered yet

    pending = team.command(writer, "/pending")
    assert pending.startswith("  [1] workspace_write(") and "for @Human" in pending
    assert "budget" in team.command(writer, "/budget").lower()

    start = len(told(team))
    team.say(writer, "/stop")
    team.wait_idle()
    dropped, *answers = told(team, start)
    assert dropped == (
        "@Writer dropped the call(s) waiting for approval: workspace_write (call 1); "
        "stopped by /stop."
    )
    assert answers == ["answered: first", "answered: second"]  # in the order they came
    assert not (tmp_path / "out.txt").exists()
    assert team.command(writer, "/approve 1") == (
        "/approve 1: refused, that call is no longer pending (dropped: stopped by /stop)."
    )
    assert team.command(writer, "/approve") == "/approve: nothing waits for approval here."


def lead(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    asked = incoming(messages)
    if asked.sender == "@Human":
        return send(info, ("@Writer", "request", "write it"))
    return send(info, ("@Human", "response", f"the Writer says: {asked.content}"))


def test_a_stop_of_its_chain_drops_the_parked_call(team: TeamHarness, tmp_path: Path) -> None:
    writer = start_writer(team, tmp_path)
    boss = team.add(card("Lead"), model=lead)
    team.say(boss, "get it written")
    team.wait_idle()
    (asked,) = told(team)
    assert "[1] workspace_write(" in asked and "for @Lead" in asked

    team.say(boss, "/stop")
    team.wait_idle()
    assert (
        "@Writer dropped the call(s) waiting for approval: workspace_write (call 1); "
        "its chain was stopped."
    ) in told(team, 1)
    assert team.command(writer, "/approve 1") == (
        "/approve 1: refused, that call is no longer pending (dropped: its chain was stopped)."
    )
    assert not (tmp_path / "out.txt").exists()


def asker(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    returns = tool_returns(run_messages(messages))
    if returns:
        return send(info, (incoming(messages).sender, "response", f"got: {returns[-1].content}"))
    return call_tool("ask_person", {"question": "Which colour?", "choices": ["red", "blue"]})


def test_a_member_deep_in_a_chain_asks_the_person_and_gets_the_answer(
    team: TeamHarness, tmp_path: Path
) -> None:
    asker_card = card("Writer")
    config = asker_card.config
    assert isinstance(config, AgentConfig)
    config.ask_person = True
    writer = team.add(asker_card, model=asker)
    boss = team.add(card("Lead"), model=lead)
    team.say(boss, "pick a colour")
    team.wait_idle()
    (asked,) = told(team)
    assert asked == (
        "@Writer waits for you (answer @Writer with /answer ID TEXT, or /deny ID REASON):\n"
        "  [1] asks: Which colour? (one of: red, blue), for @Lead"
    )
    assert (
        team.command(writer, "/answer 1 green") == "/answer 1: say one of: red, blue after the id."
    )
    assert team.command(writer, "/approve 1") == (
        "/approve 1: that is a question; /answer 1 TEXT answers it."
    )
    team.say(writer, "/answer 1 blue")
    team.wait_idle()
    assert told(team, 3) == ["Answered call 1. The run goes on.", "the Writer says: got: blue"]


def test_only_a_member_whose_calls_can_wait_offers_the_commands(
    team: TeamHarness, tmp_path: Path
) -> None:
    start_writer(team, tmp_path)
    team.add(card("Lead"), model=lead)
    asker_card = card("Asker")
    assert isinstance(asker_card.config, AgentConfig)
    asker_card.config.ask_person = True
    team.add(asker_card, model=asker)
    team.wait_idle()
    offered = {
        event.agent.name: {command.name for command in event.commands}
        for event in team.events(CommandsAnnouncedEvent)
    }
    assert {"approve", "deny", "pending"} <= offered["@Writer"]
    assert "answer" not in offered["@Writer"]  # it asks no questions: /answer is not its
    assert {"answer", "deny", "pending"} <= offered["@Asker"]
    assert not {"approve", "deny", "answer", "pending"} & offered["@Lead"]
