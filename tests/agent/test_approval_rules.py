"""An approval rule's options: a member who reviews, a timeout that denies or reminds, and
the note an approval carries to the model.

The Writer's model writes `out.txt` through the workspace card when asked to; its rule
parks the write. The Reviewer's scripted model answers what it is sent as its script says.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from agent_cards import card
from approval_writers import writer
from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models.function import AgentInfo
from retinue import ActorAddress, AgentConfig, ApprovalRule, ToolApprovalAnsweredEvent
from retinue.agent.approval_policy import check_rules, describe_rule
from retinue.testing import TeamHarness, call_tool, incoming, run_messages, send, tool_returns

WorkspaceTool = pytest.importorskip(
    "retinue_workspace", reason="the writer's tool needs retinue-workspace"
).WorkspaceTool


@pytest.fixture
def team(retinue_team: TeamHarness) -> TeamHarness:
    return retinue_team


def start_writer(team: TeamHarness, root: Path, rule: Any) -> ActorAddress:
    writer_card = card("Writer", tools=[WorkspaceTool(root=root, per_team=False)])
    config = writer_card.config
    assert isinstance(config, AgentConfig)
    config.approve = check_rules([rule])
    return team.add(writer_card, model=writer)


def told(team: TeamHarness, start: int = 0) -> list[str]:
    return [m.content for m in team.received_by("@Human")[start:]]


def reviewer_saying(*answers: str) -> Any:
    """A reviewer whose model answers each message to it with the next of `answers`."""
    queue = list(answers)

    def review(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return send(info, ("@Writer", "response", queue.pop(0)))

    return review


# ---------------------------------------------------------------------- the rule's form
def test_a_rule_with_options_is_a_table_and_a_plain_rule_stays_text() -> None:
    rules = check_rules(
        [
            "workspace.write*",
            {"rule": "workspace.delete", "reviewer": "Reviewer", "timeout": 60},
            "workspace.write*",  # once
        ]
    )
    assert rules == [
        "workspace.write*",
        ApprovalRule(rule="workspace.delete", reviewer="Reviewer", timeout=60),
    ]
    assert describe_rule(rules[1]) == "workspace.delete (reviewer Reviewer, deny after 60 s)"
    with pytest.raises(ValueError, match="approval rule timeout: Input should be greater than 0"):
        check_rules([{"rule": "workspace.delete", "timeout": 0}])
    with pytest.raises(ValueError, match=r"must be CARD\.TOOL"):
        check_rules([{"rule": "nodot."}])
    with pytest.raises(ValueError, match="approval rule then: Extra inputs are not permitted"):
        check_rules([{"rule": "workspace.delete", "then": "deny"}])


# ---------------------------------------------------------------------- a note to the model
def test_the_note_of_an_approval_reaches_the_model_with_the_result(
    team: TeamHarness, tmp_path: Path
) -> None:
    writer_address = start_writer(team, tmp_path, "workspace.write*")
    team.say(writer_address, "write it")
    team.wait_idle()
    team.say(writer_address, "/approve 1 keep it short next time")
    team.wait_idle()
    (result,) = tool_returns(team.model_requests("@Writer")[-1])
    assert result.content == (
        "Created out.txt (5 bytes, 1 line).\n\nApproved with a note: keep it short next time"
    )


# ---------------------------------------------------------------------- a reviewer
def test_a_reviewer_member_approves_and_the_person_hears_its_verdict(
    team: TeamHarness, tmp_path: Path
) -> None:
    team.add(card("Reviewer"), model=reviewer_saying("/approve 1 looks right"))
    rule = {"rule": "workspace.write*", "reviewer": "Reviewer"}
    writer_address = start_writer(team, tmp_path, rule)
    team.say(writer_address, "write it")
    team.wait_idle()

    asked, verdict, done = told(team)
    assert asked.endswith("for @Human; @Reviewer is asked to review it")
    assert verdict == ("@Reviewer for @Writer: Approved workspace_write (call 1). The run goes on.")
    assert done.startswith("wrote: Created out.txt")
    assert (tmp_path / "out.txt").read_text() == "hello"
    request = incoming(team.model_requests("@Reviewer")[0])
    assert request.content.startswith("@Writer asks you to review tool calls before they run")
    assert '[1] workspace_write({"path": "out.txt", "content": "hello"})' in request.content
    (answered,) = team.events(ToolApprovalAnsweredEvent)
    assert (answered.verdict, answered.by) == ("approved", "@Reviewer")
    assert answered.note == "looks right"


def test_a_reviewer_must_answer_in_form_and_only_what_it_was_asked(
    team: TeamHarness, tmp_path: Path
) -> None:
    team.add(
        card("Reviewer"),
        model=reviewer_saying("Looks fine to me.", "/approve 2", "/deny 1", "/deny 1 too risky"),
    )
    writer_address = start_writer(
        team, tmp_path, {"rule": "workspace.write*", "reviewer": "Reviewer"}
    )
    team.say(writer_address, "write it")
    team.wait_idle()

    told_reviewer = [m.content for m in team.received_by("@Reviewer")[1:]]
    assert told_reviewer == [
        "/approve ID [note] or /deny ID REASON, please (pending: 1).",
        "/approve 2: refused, no call 2 was asked for here; pending: 1.",
        "/deny 1: say why after the id (/deny 1 REASON).",
    ]
    assert not (tmp_path / "out.txt").exists()
    verdict, done = told(team, 1)
    assert verdict == "@Reviewer for @Writer: Denied workspace_write (call 1). The run goes on."
    assert done == "wrote: The person denied this tool call: too risky"


def test_the_person_may_answer_first_and_the_reviewer_is_then_too_late(
    team: TeamHarness, tmp_path: Path
) -> None:
    writer_card = card(
        "Writer", tools=[WorkspaceTool(root=tmp_path, per_team=False)], routes_to=["Reviewer"]
    )
    assert isinstance(writer_card.config, AgentConfig)
    writer_card.config.approve = check_rules([{"rule": "workspace.*", "reviewer": "Reviewer"}])
    hold = threading.Event()

    def slow_reviewer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if incoming(messages).intent != "request":
            return send(info)  # news wants no answer
        hold.wait(30)  # the person answers while the reviewer still thinks
        return send(info, ("@Writer", "response", "/approve 1"))

    team.register(card("Reviewer"), model=slow_reviewer)
    writer_address = team.add(writer_card, model=writer)
    team.say(writer_address, "write it")  # the Reviewer is hired for the review
    team.say(writer_address, "/deny 1 not today")
    hold.set()
    team.wait_idle()

    assert "@Reviewer" in team.roster()
    assert [m.content for m in team.received_by("@Reviewer")[1:]] == [
        "/approve 1: refused, that call is no longer pending (already denied)."
    ]
    assert not (tmp_path / "out.txt").exists()


def test_an_unreachable_reviewer_leaves_the_call_to_the_person(
    team: TeamHarness, tmp_path: Path
) -> None:
    writer_address = start_writer(
        team, tmp_path, {"rule": "workspace.write*", "reviewer": "@Nobody"}
    )
    team.say(writer_address, "write it")
    team.wait_idle()
    asked, alone = told(team)
    assert "is asked to review" not in asked
    assert alone == (
        "Answer these yourself:\n  [1] reviewer @Nobody cannot be asked: no such member"
    )


# ---------------------------------------------------------------------- timeouts
def expire(address: ActorAddress, call_id: str) -> None:
    """Wait for the call's timer to fire (its thread ends once it posted the timeout)."""
    name = f"retinue-approval-{address.name}-{call_id}"
    (timer,) = [thread for thread in threading.enumerate() if thread.name == name]
    timer.join(30)


def test_an_unanswered_call_is_denied_at_its_timeout(team: TeamHarness, tmp_path: Path) -> None:
    rule = {"rule": "workspace.write*", "timeout": 0.05}
    writer_address = start_writer(team, tmp_path, rule)
    team.say(writer_address, "write it")
    team.wait_idle()
    expire(writer_address, "1")
    team.wait_idle()

    asked, denied, done = told(team)
    assert asked.endswith("for @Human; denied if unanswered in 0.05 s")
    assert denied == (
        "@Writer: denied workspace_write (call 1): no answer within 0.05 s. The run goes on."
    )
    assert done == "wrote: The person denied this tool call: no answer within 0.05 s"
    assert not (tmp_path / "out.txt").exists()
    (answered,) = team.events(ToolApprovalAnsweredEvent)
    assert (answered.verdict, answered.by) == ("denied", "timeout")
    assert team.command(writer_address, "/approve 1") == (
        "/approve 1: refused, that call is no longer pending (already denied)."
    )


def test_a_reminder_keeps_the_call_waiting(team: TeamHarness, tmp_path: Path) -> None:
    rule = {"rule": "workspace.write*", "timeout": 0.05, "on_timeout": "remind"}
    writer_address = start_writer(team, tmp_path, rule)
    team.say(writer_address, "write it")
    team.wait_idle()
    expire(writer_address, "1")
    team.wait_idle()
    assert told(team, 1) == ["@Writer: call 1 (workspace_write) still waits for you after 0.05 s."]

    team.say(writer_address, "/approve 1")
    team.wait_idle()
    assert (tmp_path / "out.txt").read_text() == "hello"


def test_an_answer_before_the_timeout_cancels_it(team: TeamHarness, tmp_path: Path) -> None:
    writer_address = start_writer(team, tmp_path, {"rule": "workspace.write*", "timeout": 600})
    team.say(writer_address, "write it")
    team.wait_idle()
    name = f"retinue-approval-{writer_address.name}-1"
    (timer,) = [thread for thread in threading.enumerate() if thread.name == name]
    team.say(writer_address, "/approve 1")
    team.wait_idle()
    timer.join(30)  # cancelled: it ends at once, not in ten minutes
    assert not timer.is_alive()
    assert (tmp_path / "out.txt").read_text() == "hello"


# ---------------------------------------------------------------------- a card alone
def lister_then_writer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    returns = tool_returns(run_messages(messages))
    if not returns:
        return call_tool("workspace_list", {})
    if len(returns) == 1:
        return call_tool("workspace_write", {"path": "out.txt", "content": "hello"})
    return send(info, ("@Human", "response", f"wrote: {returns[-1].content}"))


def test_a_card_alone_parks_its_tools_that_change_something(
    team: TeamHarness, tmp_path: Path
) -> None:
    writer_card = card("Writer", tools=[WorkspaceTool(root=tmp_path, per_team=False)])
    assert isinstance(writer_card.config, AgentConfig)
    writer_card.config.approve = check_rules(["workspace"])
    writer_address = team.add(writer_card, model=lister_then_writer)
    team.say(writer_address, "write it")
    team.wait_idle()
    (asked,) = told(team)  # the listing ran (read-only); the write waits
    assert '[1] workspace_write({"path": "out.txt", "content": "hello"}) under rule ' in asked
    assert "'workspace'" in asked
    assert [r.tool_name for r in tool_returns(team.model_requests("@Writer")[-1])] == [
        "workspace_list"
    ]
