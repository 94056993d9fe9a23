"""`PlanningTool` as a card: plain data, discovered by name, one board per team."""

from __future__ import annotations

import threading

import pytest
import retinue_planning.hooks
from planning_helpers import board_of, create, planner
from pydantic import ValidationError
from retinue import ActorSystem, BaseAgent, CardNotBoundError, Channel
from retinue.actors import runtime
from retinue.testing import (
    TeamHarness,
    call_directive,
    check_plugin_card,
    loads_model_stack,
    scripted_card,
)
from retinue_planning import SYSTEM_PROMPT, PlanningError, PlanningTool, open_board, team_board
from retinue_planning.board import BOARD_ROLE


def test_the_card_is_a_plugin_card_named_planning_on_all_four_channels() -> None:
    check_plugin_card(
        retinue_planning.hooks,
        PlanningTool(summary_limit=5),
        name="planning",
        channels={Channel.TOOL_CALL, Channel.SYSTEM_PROMPT, Channel.LLM_CONTEXT, Channel.COMMAND},
        hook_names=["retinue_panels", "retinue_tool_cards"],
    )
    assert PlanningTool().get_system_prompts() == [SYSTEM_PROMPT]


def test_the_card_dumps_every_setting() -> None:
    card = PlanningTool(summary_limit=5)

    assert card.model_dump() == {"summary_limit": 5, "search_limit": 50, "board_timeout": 30.0}


def test_settings_are_validated() -> None:
    with pytest.raises(ValidationError):
        PlanningTool(summary_limit=0)
    with pytest.raises(ValidationError):
        PlanningTool(board_timeout=0)
    with pytest.raises(ValidationError):
        PlanningTool(sumary_limit=3)  # type: ignore[call-arg]


def test_a_blueprint_card_has_no_board() -> None:
    with pytest.raises(CardNotBoundError):
        _ = PlanningTool().board


def test_an_agent_gets_the_card_by_naming_it(retinue_team: TeamHarness) -> None:
    team = retinue_team
    agent = team.add(scripted_card("Lead", tools=["planning"]))

    create(team, agent, "Plan")

    assert team.tool_results("@Lead") == ["Created T1: Plan."]
    assert [t.title for t in board_of(team).tasks.values()] == ["Plan"]


def test_every_carrier_in_a_team_shares_one_board_that_is_not_a_member(
    retinue_team: TeamHarness,
) -> None:
    team = retinue_team
    agents = [team.add(planner(role)) for role in ("Lead", "Dev", "Tester")]

    for number, agent in enumerate(agents):
        team.say(
            agent, call_directive("planning_create_tasks", {"tasks": [{"title": f"{number}"}]})
        )
    team.wait_idle(20)

    boards = [a for a in team.system.actors() if a.role == BOARD_ROLE]
    assert len(boards) == 1
    assert boards[0].team_id == team.orchestrator.team_id
    assert sorted(t.title for t in board_of(team).tasks.values()) == ["0", "1", "2"]
    assert team.roster() == {"@Human": "Human", "@Lead": "Lead", "@Dev": "Dev", "@Tester": "Tester"}


def test_finding_the_board_is_atomic(retinue_team: TeamHarness) -> None:
    team = retinue_team
    start = threading.Barrier(20)
    found: list[str] = []
    lock = threading.Lock()

    def find() -> None:
        start.wait()
        handle = team_board(team.system, team.orchestrator)
        with lock:
            found.append(handle.address.agent_id)

    threads = [threading.Thread(target=find) for _ in range(20)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    assert len(found) == 20
    assert len(set(found)) == 1
    assert [a.role for a in team.system.actors()].count(BOARD_ROLE) == 1


def test_two_teams_never_share_a_board(retinue_plugin_manager: object) -> None:
    teams = [TeamHarness(plugin_manager=retinue_plugin_manager) for _ in range(2)]
    try:
        for number, team in enumerate(teams):
            agent = team.add(planner("Lead"))
            task = {"tasks": [{"title": f"team {number}"}]}
            team.say(agent, call_directive("planning_create_tasks", task))
            team.wait_idle(20)
        titles = [[t.title for t in board_of(team).tasks.values()] for team in teams]
    finally:
        for team in teams:
            assert team.shutdown(10)

    assert titles == [["team 0"], ["team 1"]]


def test_a_board_stops_with_its_system_and_is_forgotten(retinue_plugin_manager: object) -> None:
    team = TeamHarness(plugin_manager=retinue_plugin_manager)
    handle = team_board(team.system, team.orchestrator)
    assert isinstance(handle.proxy().get_state().version, int)

    assert team.shutdown(10)

    assert not handle.address.is_alive()
    with pytest.raises(RuntimeError, match="shutting down"):
        open_board(team.system, handle.address.team_id or "", team.orchestrator)


def test_the_board_actor_can_be_found_by_its_class(retinue_team: TeamHarness) -> None:
    handle = team_board(retinue_team.system, retinue_team.orchestrator)

    assert handle.address.name == "@Planning"
    assert handle.proxy().get_state() == handle.current


def test_discovering_the_plugin_does_not_load_the_model_stack() -> None:
    # `retinue plugins` imports every hook module; pydantic-ai must wait for the first agent.
    assert not loads_model_stack("retinue_planning.hooks")


def test_an_agent_outside_any_team_plans_on_a_board_of_its_own(
    retinue_plugin_manager: object,
) -> None:
    system = ActorSystem(plugin_manager=retinue_plugin_manager)
    try:
        solo = system.createActor(BaseAgent, planner("Solo").get_config_copy())
        system.wait_idle(10)
        agent = runtime.lookup(solo.agent_id)
        assert isinstance(agent, BaseAgent)
        plan_add = agent.command_registry.callable("plan_add")

        added = plan_add("Think", owner="Solo")
        with pytest.raises(PlanningError, match="outside a team only @Solo can"):
            plan_add("Delegate", owner="@Someone")

        board = open_board(system, f"agent-{solo.agent_id}")
        assert [(t.title, t.owner) for t in board.current.tasks.values()] == [("Think", "@Solo")]
        assert added.tasks == tuple(board.current.tasks.values())
    finally:
        assert system.shutdown(10)
