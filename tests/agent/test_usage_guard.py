"""The tier policy on real runs: conclusions, escalations, and the human told when it must be."""

from __future__ import annotations

from agent_cards import card, prompts
from retinue import (
    AgentMessage,
    AgentUsageLimits,
    ErrorMessage,
    RoutingSkippedEvent,
    RunUsageLimits,
)
from retinue.agent.custom_agent import TriageMessage
from retinue.testing import PingTool, TeamHarness

TIGHT = RunUsageLimits(run_request_limit=3)


def human_notices(team: TeamHarness) -> list[str]:
    return [m.content for m in team.received_by("@Human") if m.type == "notification"]


def test_run_tier_breach_concludes_through_the_router(retinue_team: TeamHarness) -> None:
    team = retinue_team
    worker = team.add(card("Worker", "tool_looper", run_limits=TIGHT, tools=[PingTool()]))
    team.say(worker, "dig deep")
    team.wait_idle()
    replies = team.received_by("@Human")
    assert [(m.type, m.content.split(":")[0]) for m in replies] == [("response", "partial")]
    assert human_notices(team) == []
    assert team.of(ErrorMessage) == []
    conclusion_prompt = prompts(team, "@Worker")[-1]
    assert "no longer call tools" in conclusion_prompt and "@Human" in conclusion_prompt


def test_run_tier_breach_with_failing_conclusion_escalates(retinue_team: TeamHarness) -> None:
    team = retinue_team
    worker = team.add(
        card("Worker", "tool_looper_fails_conclusion", run_limits=TIGHT, tools=[PingTool()])
    )
    team.say(worker, "dig deep")
    team.wait_idle()
    (notice,) = human_notices(team)
    assert notice.startswith("@Worker stopped:") and "request_limit" in notice
    (error,) = team.of(ErrorMessage)
    assert error.exception_type == "WarningError"
    assert "model exploded" not in error.exception_value  # the original breach is reported


def test_run_tier_breach_with_empty_conclusion_escalates(retinue_team: TeamHarness) -> None:
    team = retinue_team
    worker = team.add(
        card("Worker", "tool_looper_silent_conclusion", run_limits=TIGHT, tools=[PingTool()])
    )
    team.say(worker, "dig deep")
    team.wait_idle()
    assert len(human_notices(team)) == 1
    assert [m.type for m in team.received_by("@Human")] == ["notification"]


def test_no_sender_means_no_conclusion_attempt(retinue_team: TeamHarness) -> None:
    team = retinue_team
    worker = team.add(card("Worker", "tool_looper", run_limits=TIGHT, tools=[PingTool()]))
    team.system.send(worker, AgentMessage(content="dig deep"))
    team.wait_idle()
    assert not any("no longer call tools" in p for p in prompts(team, "@Worker"))
    assert len(human_notices(team)) == 1


def test_agent_tier_breach_notifies_the_human(retinue_team: TeamHarness) -> None:
    team = retinue_team
    worker = team.add(
        card("Worker", "silent", agent_limits=AgentUsageLimits(agent_request_limit=1))
    )
    team.say(worker, "first")
    team.say(worker, "second")
    team.wait_idle()
    assert len(prompts(team, "@Worker")) == 1
    (notice,) = human_notices(team)
    assert notice.startswith("@Worker stopped:")
    assert [e.exception_type for e in team.of(ErrorMessage)] == ["WarningError"]
    summary = team.proxy(worker).get_usage_summary()
    assert summary.runs == 1


def test_custom_agent_concludes_in_its_own_schema(retinue_team: TeamHarness) -> None:
    team = retinue_team
    helper = team.add(card("Helper", "silent"))
    triage = team.add(
        card(
            "Triage",
            "triage_looper",
            agent_class="retinue.agent.custom_agent.CustomAgent",
            run_limits=TIGHT,
            tools=[PingTool()],
        )
    )
    team.system.proxy_tell(team.human).send(triage, TriageMessage(content="sort the backlog"))
    team.wait_idle()
    assert [(m.sender.name, m.content) for m in team.received_by(helper.name) if m.sender] == [
        ("@Triage", "finish triage")
    ]
    assert human_notices(team) == []
    assert team.proxy(triage).get_audited_requests() >= 3


def test_custom_agent_routes_a_normal_turn(retinue_team: TeamHarness) -> None:
    team = retinue_team
    team.add(card("Helper", "silent"))
    triage = team.add(
        card("Triage", "triage_once", agent_class="retinue.agent.custom_agent.CustomAgent")
    )
    team.system.proxy_tell(team.human).send(triage, TriageMessage(content="one thing"))
    team.wait_idle()
    assert team.transcript()[-1][:3] == ("@Triage", "@Helper", "request")


def test_a_conclusion_with_one_unknown_recipient_still_answers(retinue_team: TeamHarness) -> None:
    team = retinue_team
    worker = team.add(
        card("Worker", "tool_looper_mixed_conclusion", run_limits=TIGHT, tools=[PingTool()])
    )
    team.say(worker, "dig deep")
    team.wait_idle()
    responses = [m for m in team.received_by("@Human") if m.type == "response"]
    assert [m.content for m in responses] == ["partial: here is what I found"]
    # no "@Worker stopped": the one notice is the news of the message that went nowhere
    assert human_notices(team) == [
        "A message from @Worker to @Nobody was not delivered: no such member"
    ]
    assert team.of(ErrorMessage) == []
    (skipped,) = team.events(RoutingSkippedEvent)
    assert skipped.recipient == "@Nobody"
