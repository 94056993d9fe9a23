"""`resume_team` on a real SQLite file: what a team brings back, read from its record.

A team runs, is shut down, and comes back in a new `ActorSystem` from the file alone. What the
models were shown is read from the record afterwards (both runs of the team are in it).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import pytest
from pydantic import BaseModel
from retinue import (
    AgentCard,
    AgentConfig,
    AgentMessage,
    AgentUsageLimits,
    BaseAgent,
    EventMessage,
    LlmEvent,
    ModelConfig,
    TeamUsageLimits,
    ToolCard,
)
from retinue.cli.main import main
from retinue.resume import ResumedTeam, ResumeError, resume_team
from retinue.store import open_store
from retinue.team.record_codec import decode
from retinue.testing import FOLLOW, TeamHarness, scripted_card
from retinue.testing.histories import model_requests
from retinue.tools import ContextMarker, find_markers

pytest.importorskip("retinue_team", reason="the resumed teams hire and fire: needs retinue-team")
pytest.importorskip("retinue_planning", reason="the resumed board needs retinue-planning")


class Tally(BaseModel):
    count: int = 0


class TallyTool(ToolCard):
    """A card whose own state must survive a resume."""

    name: ClassVar[str] = "tally"

    def get_commands(self) -> Sequence[Any]:
        return [self.tally]

    def tally(self) -> str:
        """Count one more."""
        state = self.card_state(Tally)
        state.count += 1
        return f"tally {state.count}"


def worker_card(limit: int | None = None, tools: list[Any] | None = None) -> AgentCard:
    return AgentCard(
        description="Does the work",
        agent_class=BaseAgent,
        config=AgentConfig(
            name="@Worker",
            role="Worker",
            model_cfg=ModelConfig(provider="function", model=FOLLOW),
            agent_usage_limits=AgentUsageLimits(agent_request_limit=limit),
            tools=tools or [],
        ),
    )


def say(team: ResumedTeam, text: str, timeout: float = 60) -> None:
    team.send(text)
    team.system.wait_idle(timeout)


def llm_events(where: str, team_id: str) -> list[LlmEvent]:
    with open_store(where, create=False) as store:
        messages = [decode(record.data) for record in store.read(team_id)]
    return [
        m.event for m in messages if isinstance(m, EventMessage) and isinstance(m.event, LlmEvent)
    ]


def test_lifetime_counters_and_context_baselines_survive_a_resume(where: str, resumed: Any) -> None:
    """The spec's two examples: 180 of 200 runs spent leaves 20; the next context update is
    empty when nothing changed while the team was gone."""
    first = TeamHarness(store=where)
    worker = first.add(worker_card(limit=200))
    for n in range(180):
        first.say(worker, f"job {n}")
    first.wait_idle(120)
    assert first.proxy(worker).get_usage_summary().runs == 180
    assert first.shutdown(10)

    team, _ = resumed(first.team_id)

    back = team.roster["@Worker"]
    assert (back.name, back.agent_id) == (worker.name, worker.agent_id)
    assert team.system.proxy_ask(back).get_usage_summary().runs == 180
    for n in range(21):
        team.send(f"more {n}", to=back)
    team.system.wait_idle(60)
    assert team.system.proxy_ask(back).get_usage_summary().runs == 200  # the 21st refused
    requests = model_requests(llm_events(where, first.team_id), "@Worker")
    assert len(requests) == 200
    # One full snapshot in the agent's whole life: the resume appended no block.
    assert find_markers(requests[-1]) == [ContextMarker(1, full=True)]


def test_a_resumed_manager_is_manager_and_a_fired_member_stays_gone(
    where: str, resumed: Any
) -> None:
    first = TeamHarness(store=where)
    first.register(scripted_card("Manager"), scripted_card("Writer"))
    manager = first.start("Manager")
    assert first.command(manager, "/hire_member Writer") == "@Writer"
    assert first.command(manager, "/fire_member @Writer").startswith("Fired @Writer")
    assert first.shutdown(10)

    team, _ = resumed(first.team_id)

    assert sorted(team.roster) == ["@Human", "@Manager"]
    assert team.roster["@Manager"].agent_id == manager.agent_id
    assert team.entry == team.roster["@Manager"]  # the member the person last wrote to
    team.send("/hire_member Writer")
    team.system.wait_idle(30)
    names = [m.name for m in team.team.get_team_members()]
    assert sorted(names) == ["@Human", "@Manager", "@Writer"]  # the name was free


def test_the_planning_board_and_a_cards_own_state_come_back(where: str, resumed: Any) -> None:
    first = TeamHarness(store=where)
    lead = first.add(scripted_card("Lead", tools=["planning", TallyTool()]))
    assert first.command(lead, "/tally") == "tally 1"
    first.command(lead, "/plan_add Write the parser")
    first.command(lead, "/plan_add Test the parser depends_on=T1")
    assert first.shutdown(10)

    team, recorder = resumed(first.team_id)
    say(team, "/plan_add Ship it depends_on=T2")
    say(team, "/planning_summary")
    say(team, "/tally")

    answers = [
        m.message.content
        for m in recorder.messages
        if getattr(m, "message", None) is not None
        and isinstance(m.message, AgentMessage)
        and m.message.recipient == team.human
    ]
    created, summary, tally = answers
    assert created.startswith("Created T3")
    assert all(title in summary for title in ("Write the parser", "Test the parser", "Ship it"))
    assert tally == "tally 2"


def test_resuming_a_team_the_store_does_not_have_is_one_clear_error(where: str) -> None:
    first = TeamHarness(store=where)
    assert first.shutdown(10)
    with open_store(where, create=False) as store, pytest.raises(ResumeError) as caught:
        resume_team(store, "no-such-team")
    assert str(caught.value) == f"{where} has no team no-such-team (teams: {first.team_id})"


def test_retinue_resume_says_each_message_then_reports_nothing_owed(
    where: str, capsys: pytest.CaptureFixture[str]
) -> None:
    first = TeamHarness(store=where)
    first.register(scripted_card("Manager"), scripted_card("Writer"))
    manager = first.start("Manager")
    first.command(manager, "/hire_member Writer")
    assert first.shutdown(10)

    code = main(["resume", first.team_id, "--store", where, "-m", "/team_members"])

    out = capsys.readouterr().out.splitlines()
    assert code == 0
    assert out[0] == f"resumed team {first.team_id}: @Human, @Manager, @Writer"
    assert any("@Writer — Writer (idle)" in line for line in out)  # the command's answer
    assert out[-1] == "nothing is left owed: every delivered message was handled"


def test_retinue_resume_of_an_unknown_team_is_one_line_and_status_1(
    where: str, capsys: pytest.CaptureFixture[str]
) -> None:
    first = TeamHarness(store=where)
    assert first.shutdown(10)

    code = main(["resume", "nope", "--store", where])

    err = capsys.readouterr().err.splitlines()
    assert code == 1
    assert err == [f"retinue resume: {where} has no team nope (see `retinue teams`)"]


def test_retinue_resume_takes_a_prefix_of_the_team_id(
    where: str, capsys: pytest.CaptureFixture[str]
) -> None:
    first = TeamHarness(store=where)
    assert first.shutdown(10)

    assert main(["resume", first.team_id[:6], "--store", where]) == 0
    assert capsys.readouterr().out.startswith(f"resumed team {first.team_id}: @Human")


def test_the_team_budget_goes_on_from_what_the_record_says_was_spent(
    where: str, resumed: Any
) -> None:
    first = TeamHarness(store=where, budget=TeamUsageLimits(request_limit=5))
    worker = first.add(worker_card())
    for n in range(3):
        first.say(worker, f"job {n}")
    first.wait_idle(60)
    spent = first.orchestrator_proxy.get_budget_status().usage.requests
    assert spent == 3
    first.orchestrator_proxy.set_usage_limits(TeamUsageLimits(request_limit=4))
    assert first.shutdown(10)

    team, _ = resumed(first.team_id)

    status = team.system.proxy_ask(team.orchestrator).get_budget_status()
    assert (status.usage.requests, status.limits.request_limit) == (3, 4)
    back = team.roster["@Worker"]
    for n in range(3):
        team.send(f"more {n}", to=back)
    team.system.wait_idle(60)
    after = team.system.proxy_ask(team.orchestrator).get_budget_status()
    assert after.usage.requests == 4  # one more run fitted; the others are held
