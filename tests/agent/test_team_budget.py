"""A team budget: every member counts, hired ones too; a spent budget holds work until a raise.

Real teams on scripted models. The scripted model answers under a real model name (`gpt-4.1`
on `openai`) with a fixed usage, so the USD figure is checked against `genai-prices` itself.
"""

from __future__ import annotations

import re
import threading
from typing import Any

import pytest
from agent_cards import card
from genai_prices import calc_price
from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models.function import AgentInfo, FunctionModel
from pydantic_ai.usage import RequestUsage
from retinue import (
    ActorAddress,
    BudgetExhaustedEvent,
    BudgetLimitsChangedEvent,
    RunStartedEvent,
    StateChangedMessage,
    TeamUsageLimits,
    team_limits_from_events,
    team_usage_from_events,
)
from retinue.testing import TeamHarness, agent_name, incoming, send

USAGE = RequestUsage(input_tokens=1_000, output_tokens=100)
PRICE = float(calc_price(USAGE, "gpt-4.1", provider_id="openai").total_price)


def priced(response: ModelResponse) -> ModelResponse:
    """The response as OpenAI would report it: its provider and a fixed usage."""
    response.usage = USAGE
    response.provider_name = "openai"
    return response


class Script:
    """Two leads who each hire a helper and tell each other, then report to the person.

    With `together=2` the leads' first runs meet at a barrier, so both are in flight at once.
    """

    def __init__(self, together: int = 2) -> None:
        self.start = threading.Barrier(together, timeout=30)
        self.first_runs = together
        self.lock = threading.Lock()

    def __call__(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        me = agent_name(info)
        seen = incoming(messages)
        if me.startswith("@Lead") and seen.sender == "@Human":
            with self.lock:
                wait, self.first_runs = self.first_runs > 0, self.first_runs - 1
            if wait:
                self.start.wait()
            other = "@Lead2" if me == "@Lead" else "@Lead"
            return priced(
                send(
                    info,
                    ("Helper", "request", f"check the work of {me}"),
                    (other, "notification", f"{me} has started"),
                )
            )
        if me.startswith("@Lead") and seen.sender.startswith("@Helper"):
            return priced(send(info, ("@Human", "response", f"{me} done")))
        if me.startswith("@Lead"):
            return priced(send(info))  # a colleague's news: nothing to say
        return priced(send(info, (seen.sender, "response", "checked")))


def budget_notices(team: TeamHarness) -> list[str]:
    return [m.content for m in team.received_by("@Human") if "budget is spent" in m.content]


def member(team: TeamHarness, name: str) -> ActorAddress:
    address: ActorAddress | None = team.orchestrator_proxy.get_team_member(name)
    assert address is not None, f"{name} is not in the team"
    return address


def checkpoint(team: TeamHarness, agent: ActorAddress) -> Any:
    """The last state `agent` published."""
    return [m.state for m in team.of(StateChangedMessage) if m.sender == agent][-1]


def start_leads(team: TeamHarness, script: Script) -> tuple[ActorAddress, ActorAddress]:
    model = FunctionModel(script, model_name="gpt-4.1")
    team.register(card("Helper"), model=model)
    leads = (team.add(card("Lead"), model=model), team.start("Lead"))
    for lead in leads:
        team.say(lead, "Start the work.")
    return leads


def test_two_leads_hiring_in_parallel_exhaust_the_budget_and_a_raise_lets_the_work_finish() -> None:
    pytest.importorskip("retinue_team", reason="hiring by role needs retinue-team")
    team = TeamHarness(budget=TeamUsageLimits(request_limit=1))
    try:
        lead, lead2 = start_leads(team, Script(together=1))
        team.wait_idle()

        status = team.budget_status()
        started = team.events(RunStartedEvent)
        # Asked together, one lead's run was admitted with the one request the budget had,
        # reserved before it started: the other's was refused, and nothing passed the limit.
        assert status.peak_in_flight == 1
        assert status.usage.runs == len(started) == 1
        assert status.usage.requests == 1 == status.limits.request_limit
        assert status.usage.total_tokens == USAGE.total_tokens
        assert status.reserved_requests == 0
        (first,) = {e.agent_name for e in started}
        (second,) = {"@Lead", "@Lead2"} - {first}
        # The helper was hired (hiring is no run) and holds its request, as does the other
        # lead the person's message and its colleague's news: held, not failed.
        assert set(team.roster()) >= {"@Helper"}
        assert sorted(status.holders) == ["@Helper", second]
        assert team.model_requests("@Helper") == []
        assert not any("failed" in m.content for m in team.received_by(second))
        # The person is told once, with the figures when the limit was reached.
        [notice] = budget_notices(team)
        assert re.fullmatch(
            r"The team's budget is spent \(requests: [12] used of 1 allowed\)\. The team "
            r"starts no new run: messages that arrive are held, not lost, and handled after a "
            r"raise, e\.g\. `/budget raise requests=100 tokens=100000 usd=1`; `/budget` shows "
            r"the figures\.",
            notice,
        ), notice
        assert [e.breaches[0].metric for e in team.events(BudgetExhaustedEvent)] == ["requests"]

        shown = team.command(member(team, "@Helper"), "/budget")
        assert "requests: 1 / 1  (spent)" in shown
        assert f"USD: ${PRICE:,.4f} / no limit" in shown
        assert f"{first}: 1 runs, 1 requests, 1,100 tokens" in shown
        assert f"@Helper, {second} hold messages" in shown

        team.say(lead2, "/budget raise requests=10")
        team.wait_idle()

        final = team.budget_status()
        assert final.limits.request_limit == 11
        assert final.holders == []
        # Every held message was handled: 2 first runs, 2 helpers, 2 colleagues' news, 2 reports.
        assert final.usage.requests == final.usage.runs == 8
        assert final.usage.total_tokens == 8 * USAGE.total_tokens
        assert final.usage.cost_usd == pytest.approx(8 * PRICE, rel=1e-12)
        assert final.usage.unpriced_models == []
        assert final.usage.by_member["@Helper"].requests == 1
        said = [m.content for m in team.received_by("@Human")]
        assert "@Lead done" in said and "@Lead2 done" in said
        assert any(s.startswith("Team budget raised: requests 11.") for s in said)
        assert len(budget_notices(team)) == 1  # the raise is no second exhaustion

        # The tally and the limits are a pure fold of the record.
        recorded = team.events()
        assert team_usage_from_events(recorded) == final.usage
        assert team_limits_from_events(recorded, TeamUsageLimits(request_limit=1)) == final.limits
        assert [e.changed_by for e in team.events(BudgetLimitsChangedEvent)] == ["@Human"]
        assert lead != lead2
    finally:
        team.shutdown()


def test_the_usd_limit_counts_what_genai_prices_says_the_scripted_usage_costs() -> None:
    team = TeamHarness(budget=TeamUsageLimits(cost_limit_usd=1.5 * PRICE))
    try:
        seen: list[str] = []

        def worker(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
            seen.append(incoming(messages).content)
            return priced(send(info))

        solo = team.add(card("Worker"), model=FunctionModel(worker, model_name="gpt-4.1"))
        for n in range(5):
            team.say(solo, f"task {n}")
        team.wait_idle()

        status = team.budget_status()
        assert seen == ["task 0", "task 1"]  # at $0 and $1 PRICE below the limit; at 2 not
        assert status.usage.cost_usd == pytest.approx(2 * PRICE, rel=1e-12)
        assert budget_notices(team) == [
            f"The team's budget is spent (USD: ${2 * PRICE:,.4f} used of ${1.5 * PRICE:,.4f} "
            "allowed). The team starts no new run: messages that arrive are held, not lost, "
            "and handled after a raise, e.g. `/budget raise requests=100 tokens=100000 usd=1`; "
            "`/budget` shows the figures."
        ]
        assert status.holders == ["@Worker"]
        held_ids = [m.id for m in team.received_by("@Worker")[2:]]
        assert checkpoint(team, solo).budget_held == held_ids  # what a resume needs to know

        team.say(solo, "/budget raise usd=1")
        team.wait_idle()
        assert seen == [f"task {n}" for n in range(5)]  # held ones in the order they came
        assert team.budget_status().usage.cost_usd == pytest.approx(5 * PRICE, rel=1e-12)
        assert checkpoint(team, solo).budget_held == []
    finally:
        team.shutdown()


def test_a_model_without_a_price_counts_tokens_only_and_the_display_says_so(
    retinue_team: TeamHarness,
) -> None:
    team = retinue_team
    team.orchestrator_proxy.set_usage_limits(TeamUsageLimits(total_tokens_limit=10_000))

    def unnamed(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        response = send(info)
        response.usage = USAGE
        return response

    solo = team.add(card("Worker"), model=FunctionModel(unnamed, model_name="in-house-model"))
    team.say(solo, "task")
    team.wait_idle()

    usage = team.budget_status().usage
    assert (usage.requests, usage.total_tokens, usage.cost_usd) == (1, 1_100, 0.0)
    assert usage.unpriced_models == ["in-house-model"]
    assert usage.unpriced_requests == 1
    shown = team.command(solo, "/budget")
    assert "tokens: 1,100 / 10,000" in shown
    assert "The USD figure leaves out models genai-prices has no price for: in-house-model" in (
        shown
    )


def test_budget_commands_are_for_operators_only_and_answer_mistakes_in_one_line(
    retinue_team: TeamHarness,
) -> None:
    team = retinue_team
    team.orchestrator_proxy.set_usage_limits(TeamUsageLimits(request_limit=5))
    seen: list[str] = []

    def script(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if agent_name(info) == "@Boss":
            return send(info, ("@Worker", "request", "/budget raise usd=100"))
        seen.append(incoming(messages).content)
        return send(info)

    solo = team.add(card("Worker"), model=FunctionModel(script))
    boss = team.add(card("Boss"), model=FunctionModel(script))

    assert team.command(solo, "/budget set usd=2 requests=off") == (
        "Team budget set: USD $2.0000. Runs may start again; held messages are handled now."
    )
    assert team.command(solo, "/budget raise tokens=100") == (
        "Team budget raised: USD $2.0000. Runs may start again; held messages are handled "
        "now. tokens: no limit was set, so none was raised (use `set`)."
    )
    assert team.command(solo, "/budget raise usd=off").startswith("/budget raise: `off`")
    assert team.command(solo, "/budget raise").startswith("/budget raise: name at least one")
    assert team.command(solo, "/budget set usd=-1") == (
        "/budget set: usd must be above 0 (or `off`), got -1."
    )
    assert team.command(solo, "/budget tokens=5").startswith("/budget: say `raise` or `set`")
    assert team.budget_status().limits == TeamUsageLimits(cost_limit_usd=2.0)

    # Another agent's words are content, never a command: an agent cannot raise the budget.
    team.say(boss, "go")
    team.wait_idle()
    assert seen == ["/budget raise usd=100"]
    assert team.budget_status().limits == TeamUsageLimits(cost_limit_usd=2.0)
