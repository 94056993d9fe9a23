"""An agent's usage is kept once, by its runner: what it reports is what its budget counts."""

from __future__ import annotations

from agent_cards import card
from retinue import AgentUsageLimits, AgentUsageSummary, LlmEvent
from retinue.testing import TeamHarness


def test_an_agent_restored_from_events_reports_the_usage_it_was_restored_with(
    retinue_team: TeamHarness,
) -> None:
    team = retinue_team
    first = team.add(card("Worker", "silent"))
    team.say(first, "one")
    team.say(first, "two")
    team.wait_idle()
    recorded = [e for e in team.events(LlmEvent) if e.agent_name == first.name]
    second = team.add(
        card("Worker", "silent", agent_limits=AgentUsageLimits(agent_request_limit=3))
    )

    team.proxy(second).react_agent.restore_context(recorded)

    spent: AgentUsageSummary = team.proxy(first).get_usage_summary(by_run=True)
    restored: AgentUsageSummary = team.proxy(second).get_usage_summary(by_run=True)
    assert (spent.runs, spent.requests) == (2, 2)
    assert restored == spent
    assert team.proxy(second).react_agent.usage_summary() == restored.model_copy(
        update={"by_run": None}
    )  # the very ledger its budget is checked against


def test_the_summary_counts_a_run_the_moment_the_budget_does(retinue_team: TeamHarness) -> None:
    team = retinue_team
    worker = team.add(
        card("Worker", "silent", agent_limits=AgentUsageLimits(agent_request_limit=1))
    )
    team.say(worker, "one")
    team.say(worker, "two")  # refused: the lifetime budget is one run
    team.wait_idle()

    summary = team.proxy(worker).get_usage_summary()
    assert summary.runs == 1
    assert team.proxy(worker).react_agent.usage_summary() == summary
