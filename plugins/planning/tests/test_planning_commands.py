"""Commands: the spec's three reads, and the changes a person makes from their seat."""

from __future__ import annotations

from planning_helpers import board_of, create, planner
from retinue import ActorAddress, BaseAgent, CommandsAnnouncedEvent
from retinue.actors import runtime
from retinue.testing import TeamHarness
from retinue_planning import (
    PlanningChangedEvent,
    PlanningResult,
    PlanningSearch,
    PlanningTask,
)


def test_the_commands_are_announced_with_the_spec_names(retinue_team: TeamHarness) -> None:
    team = retinue_team
    team.add(planner("Lead"))
    team.wait_idle(20)

    [announced] = team.events(CommandsAnnouncedEvent)
    usages = [c.usage for c in announced.commands if c.owner == "planning"]

    assert usages == [
        "/planning_summary",
        "/get_planning_task <task_id>",
        "/search_planning [query=<query>] [status=<status>] [owner=<owner>]",
        "/plan_add [owner=<owner>] [depends_on=<depends_on>] [description=<description>] "
        "[status=<status>] [<title>...]",
        "/plan_set <task_id> [status=<status>] [owner=<owner>] [title=<title>] "
        "[description=<description>] [depends_on=<depends_on>] [note=<note>]",
        "/plan_note <task_id> [<text>...]",
        "/plan_close <task_id> [dropped=<dropped>] [<note>...]",
    ]


def test_a_person_plans_from_their_seat(retinue_team: TeamHarness, lead: ActorAddress) -> None:
    team = retinue_team
    team.add(planner("Dev"))

    exchange = [  # what the person types, and the answer, in order
        ("/plan_add Design the parser", "Created T1: Design the parser."),
        (
            '/plan_add Build it owner=Dev depends_on=T1 description="Use PEG."',
            "Created T2: Build it.",
        ),
        ("/plan_note T1 the grammar is in docs/grammar.md", "Added a note to T1 (1 note)."),
        (
            "/plan_set T1 status=doing owner=@Lead",
            "@Human changed T1: status todo → doing, owner nobody → @Lead.",
        ),
        ("/plan_close T1 reviewed", "@Human changed T1: status doing → done, note added."),
        (
            "/plan_set T2 owner=- depends_on=-",
            "@Human changed T2: owner @Dev → nobody, depends on nothing.",
        ),
        (
            "/plan_close T2 not needed after all dropped=yes",
            "@Human changed T2: status todo → dropped, note added.",
        ),
        ("/plan_set T2 status=dropped", "T2 already is as asked; nothing changed."),
    ]
    answers = [team.command(lead, typed) for typed, _ in exchange]

    assert answers == [answer for _, answer in exchange]
    board = board_of(team)
    assert [(t.id, t.status, t.owner, t.depends_on) for t in board.tasks.values()] == [
        ("T1", "done", "@Lead", ()),
        ("T2", "dropped", "", ()),
    ]
    assert board.tasks["T2"].description == "Use PEG."
    assert {e.author for e in team.events(PlanningChangedEvent)} == {"@Human"}
    assert [n.text for n in board.tasks["T1"].notes] == [
        "the grammar is in docs/grammar.md",
        "reviewed",
    ]


def test_the_spec_reads_answer_a_person(retinue_team: TeamHarness, lead: ActorAddress) -> None:
    team = retinue_team
    team.command(lead, "/plan_add Design")
    team.command(lead, "/plan_add Build depends_on=T1")
    team.command(lead, "/plan_set T1 status=done")

    assert team.command(lead, "/planning_summary") == (
        "Planning board, version 3: 2 tasks (1 todo, 1 done).\n"
        "\n"
        "todo (1):\n"
        "- T2: [todo] Build — unassigned; after T1\n"
        "\n"
        "done (1):\n"
        "- T1: [done] Design — unassigned"
    )
    assert team.command(lead, "/search_planning status=todo") == (
        "1 task with status todo:\nT2: [todo] Build — unassigned; after T1"
    )
    assert team.command(lead, "/search_planning design") == (
        "1 task with 'design':\nT1: [done] Design — unassigned"
    )
    shown = team.command(lead, "/get_planning_task t2").splitlines()
    assert shown[:4] == ["T2: Build", "status: todo", "owner: unassigned", "depends on: T1"]


def test_refusals_answer_the_person_with_the_reason(
    retinue_team: TeamHarness, lead: ActorAddress
) -> None:
    team = retinue_team
    team.command(lead, "/plan_add Design")

    assert team.command(lead, "/plan_set T7 status=done") == (
        "/plan_set failed: PlanningError: there is no task T7; the tasks are T1 to T1"
    )
    assert team.command(lead, "/plan_add Build owner=@Ghost") == (
        "/plan_add failed: PlanningError: the task ('Build'): @Ghost is not a member of the "
        "team; the members are @Human, @Lead"
    )
    assert team.command(lead, "/plan_add") == (
        "/plan_add failed: PlanningError: the task (''): a task needs a title (one short "
        "line saying what is to be done)"
    )
    assert team.command(lead, "/get_planning_task nope").startswith(
        "/get_planning_task failed: PlanningError: 'nope' is not a task id"
    )
    assert team.command(lead, "/plan_set T1 status=finished").startswith("/plan_set: ")
    assert len(board_of(team).tasks) == 1


def test_code_gets_native_values_from_the_commands(
    retinue_team: TeamHarness, lead: ActorAddress
) -> None:
    team = retinue_team
    create(team, lead, "Design")
    agent = runtime.lookup(lead.agent_id)
    assert isinstance(agent, BaseAgent)
    registry = agent.command_registry

    added = registry.callable("plan_add")("Build", depends_on=["T1"])
    task = registry.callable("get_planning_task")("T2")
    found = registry.callable("search_planning")("build")

    assert isinstance(added, PlanningResult)
    assert [t.id for t in added.tasks] == ["T2"]
    assert added.events[0].task_before is None
    assert added.events[0].author == "@Lead"  # from code, the agent acts for itself
    assert isinstance(task, PlanningTask)
    assert task.depends_on == ("T1",)
    assert isinstance(found, PlanningSearch)
    assert (found.total, [t.id for t in found.tasks]) == (1, ["T2"])
