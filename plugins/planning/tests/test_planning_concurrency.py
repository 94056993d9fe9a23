"""Ten agents change one board at the same time: every change is there, in one order."""

from __future__ import annotations

from planning_helpers import board_of, planner
from retinue import EventMessage
from retinue.testing import TeamHarness, call_directive, send_directive
from retinue_planning import PlanningChangedEvent, rebuild_board
from retinue_planning.board import BOARD_ROLE

AGENTS = 10
STEPS = 5  # changes each agent makes in its turn


def script(name: str, own: str) -> str:
    """One agent's turn: notes on the shared T1, its own task through to done, a follow-up."""
    follow_up = {"title": f"Follow-up of {name}", "owner": name, "depends_on": [own]}
    return "\n".join(
        [
            call_directive("planning_comment", {"task_id": "T1", "text": f"first from {name}"}),
            call_directive("planning_update_task", {"task_id": own, "status": "doing"}),
            call_directive("planning_create_tasks", {"tasks": [follow_up]}),
            call_directive(
                "planning_update_task", {"task_id": own, "status": "done", "note": "finished"}
            ),
            call_directive("planning_comment", {"task_id": "T1", "text": f"second from {name}"}),
            send_directive("@Human", "response", "done"),
        ]
    )


def test_ten_agents_updating_one_board_at_once_lose_nothing(retinue_team: TeamHarness) -> None:
    team = retinue_team
    names = [f"@Agent{n}" for n in range(AGENTS)]
    agents = [team.add(planner(name[1:])) for name in names]
    team.command(agents[0], "/plan_add Shared")
    for name in names:
        team.command(agents[0], f"/plan_add Work of {name} owner={name}")
    setup = 1 + AGENTS

    # Every agent's turn starts before the others' end: they share the board concurrently.
    for number, agent in enumerate(agents):
        team.say(agent, script(names[number], own=f"T{number + 2}"))
    team.wait_idle(60)

    assert [m.content for m in team.received_by("@Human")][-AGENTS:] == ["done"] * AGENTS
    for name in names:
        results = team.tool_results(name)
        assert len(results) == STEPS, results
        assert not any(r.startswith("Error") for r in results), results

    board = board_of(team)
    # Every note on the shared task is there, and each author's two notes in their order.
    shared = [(n.author, n.text) for n in board.tasks["T1"].notes]
    assert sorted(shared) == sorted(
        (name, f"{which} from {name}") for name in names for which in ("first", "second")
    )
    for name in names:
        mine = [text for author, text in shared if author == name]
        assert mine == [f"first from {name}", f"second from {name}"]
    # Every agent's own task went todo -> doing -> done, and its follow-up depends on it.
    for number, name in enumerate(names):
        own = board.tasks[f"T{number + 2}"]
        assert (own.status, own.owner, [n.text for n in own.notes]) == ("done", name, ["finished"])
    follow_ups = {t.owner: t for t in board.tasks.values() if t.title.startswith("Follow-up")}
    assert sorted(t.id for t in follow_ups.values()) == sorted(
        f"T{n}" for n in range(setup + 1, setup + AGENTS + 1)
    )
    for number, name in enumerate(names):
        assert follow_ups[name].depends_on == (f"T{number + 2}",)

    # One change, one event, one version: an unbroken line, recorded in version order.
    events = team.events(PlanningChangedEvent)
    assert [e.board_version for e in events] == list(range(1, setup + AGENTS * STEPS + 1))
    assert board.version == setup + AGENTS * STEPS
    for name in names:  # each agent's own changes in the order it made them
        own_events = [e.describe() for e in events if e.author == name]
        assert len(own_events) == STEPS
    assert rebuild_board(events) == board

    # They all went to the one board, which is not a member of the team.
    assert [a.role for a in team.system.actors()].count(BOARD_ROLE) == 1
    senders = {m.sender for m in team.of(EventMessage) if isinstance(m.event, PlanningChangedEvent)}
    assert [s.role for s in senders if s is not None] == [BOARD_ROLE]
    assert "@Planning" not in team.roster()
