"""Every change is an event with the task before and after; the board is rebuilt from them."""

from __future__ import annotations

import itertools
import json
from typing import Any

import pytest
from planning_helpers import board_of, create, planner
from retinue import ActorAddress, EventMessage, SentMessage, StateChangedMessage
from retinue.testing import TeamHarness, call_directive, script, send_directive
from retinue_planning import (
    PlanningBoardState,
    PlanningChangedEvent,
    rebuild_board,
    team_board,
)


def busy_board(team: TeamHarness) -> None:
    """A board with some history: creates, changes, notes, a refusal and a no-op."""
    lead = team.add(planner("Lead"))
    team.add(planner("Dev"))
    plan = {"tasks": [{"title": "Design"}, {"title": "Build", "depends_on": ["#1"]}]}
    team.say(
        lead,
        script(
            call_directive("planning_create_tasks", plan),
            call_directive("planning_update_task", {"task_id": "T1", "owner": "@Dev"}),
            call_directive("planning_update_task", {"task_id": "T2", "status": "done"}),
            call_directive("planning_update_task", {"task_id": "T1", "owner": "@Dev"}),
            call_directive("planning_comment", {"task_id": "T1", "text": "Go."}),
            send_directive("@Dev", "request", "work"),
        ),
    )
    team.wait_idle(20)
    team.command(lead, "/plan_close T1 designed")
    team.command(lead, "/plan_add Ship depends_on=T2")


def recorded(team: TeamHarness) -> list[dict[str, Any]]:
    """The planning events as a store would read them back: dumped to JSON and loaded."""
    return [
        json.loads(m.model_dump_json())["event"]
        for m in team.of(EventMessage)
        if isinstance(m.event, PlanningChangedEvent)
    ]


def test_each_change_is_one_event_with_the_task_before_and_after(
    retinue_team: TeamHarness,
) -> None:
    team = retinue_team
    busy_board(team)

    events = team.events(PlanningChangedEvent)

    assert [e.describe() for e in events] == [
        "@Lead created T1 'Design' (todo)",
        "@Lead created T2 'Build' (todo)",
        "@Lead changed T1: owner nobody → @Dev",
        "@Lead changed T1: note added",
        "@Human changed T1: status todo → done, note added",
        "@Human created T3 'Ship' (todo)",
    ]
    assert [e.board_version for e in events] == [1, 2, 3, 4, 5, 6]
    for earlier, later in itertools.pairwise(events):
        if later.task_before is not None and later.task_id == earlier.task_id:
            assert later.task_before == earlier.task_after
    assert events[0].task_before is None
    assert events[2].task_before is not None and events[2].task_before.owner == ""
    assert events[2].task_after.owner == "@Dev"


def test_an_event_is_in_the_chain_of_the_message_that_caused_it(
    retinue_team: TeamHarness,
    lead: ActorAddress,
) -> None:
    team = retinue_team

    create(team, lead, "Design")

    [asked] = [m for m in team.of(SentMessage) if m.recipient == lead]
    [event] = [m for m in team.of(EventMessage) if isinstance(m.event, PlanningChangedEvent)]
    assert event.chain_id == asked.message.chain_id
    assert event.parent_id == asked.message.id
    assert event.team_id == team.orchestrator.team_id


def test_the_board_rebuilt_from_its_recorded_events_equals_the_live_board(
    retinue_team: TeamHarness,
) -> None:
    team = retinue_team
    busy_board(team)
    live = board_of(team)

    rebuilt = rebuild_board(recorded(team))

    assert rebuilt == live
    assert list(rebuilt.tasks) == list(live.tasks)
    assert (rebuilt.version, rebuilt.next_number) == (6, 4)
    assert rebuild_board(reversed(recorded(team))) == live  # any order
    assert rebuild_board(recorded(team) * 2) == live  # recorded twice counts once


def test_the_boards_checkpoint_equals_the_live_board(retinue_team: TeamHarness) -> None:
    team = retinue_team
    busy_board(team)
    board = team_board(team.system, team.orchestrator)

    checkpoints = [
        m.state
        for m in team.of(StateChangedMessage)
        if m.sender is not None and m.sender == board.address
    ]

    assert checkpoints[-1] == board.current
    again = PlanningBoardState.model_validate_json(checkpoints[-1].model_dump_json())
    assert again == board.current


def test_a_resumed_team_continues_the_rebuilt_board(
    retinue_team: TeamHarness, retinue_plugin_manager: object
) -> None:
    first = retinue_team
    busy_board(first)
    record = recorded(first)

    second = TeamHarness(plugin_manager=retinue_plugin_manager)
    try:
        team_board(second.system, second.orchestrator).proxy().restore(rebuild_board(record))
        lead = second.add(planner("Lead"))
        create(second, lead, "Next")
        [event] = second.events(PlanningChangedEvent)
        resumed = board_of(second)
    finally:
        assert second.shutdown(10)

    assert (event.board_version, event.task_id) == (7, "T4")
    assert list(resumed.tasks) == ["T1", "T2", "T3", "T4"]
    assert rebuild_board([*record, event.model_dump(mode="json")]) == resumed


def test_a_board_is_restored_only_before_its_first_change(retinue_team: TeamHarness) -> None:
    team = retinue_team
    busy_board(team)
    board = team_board(team.system, team.orchestrator)

    with pytest.raises(ValueError, match="already has 6 changes"):
        board.proxy().restore(PlanningBoardState())
    assert board.current.version == 6


def test_a_broken_line_of_events_is_named(retinue_team: TeamHarness) -> None:
    team = retinue_team
    busy_board(team)
    events = team.events(PlanningChangedEvent)

    with pytest.raises(
        ValueError, match="jump from board version 2 to 4: the events for version 3"
    ):
        rebuild_board([e for e in events if e.board_version != 3])
    with pytest.raises(
        ValueError, match="jump from board version 0 to 3: the events for versions 1 to 2"
    ):
        rebuild_board(events[2:])
    twin = events[3].model_copy(update={"author": "@Mallory"})
    with pytest.raises(
        ValueError, match="two different planning events were recorded for board version 4"
    ):
        rebuild_board([*events, twin])
    skewed = events[3].model_copy(update={"task_before": events[0].task_after})
    with pytest.raises(ValueError, match="the planning event for board version 4 changes T1, but"):
        rebuild_board([*events[:3], skewed, *events[4:]])


def test_events_after_a_checkpoint_are_folded_onto_it(retinue_team: TeamHarness) -> None:
    team = retinue_team
    busy_board(team)
    events = team.events(PlanningChangedEvent)

    midway = rebuild_board(events[:3])

    assert rebuild_board(events, start=midway) == board_of(team)
    assert rebuild_board(events[3:], start=midway) == board_of(team)
