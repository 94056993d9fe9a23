"""The model's tools in real runs: what they answer, retries it can act on, turns that go on."""

from __future__ import annotations

from planning_helpers import board_of, planner
from retinue import ActorAddress
from retinue.testing import TeamHarness, call_directive, script, tool_returns


def retried(team: TeamHarness, name: str) -> list[str]:
    """The tool answers the agent's model was sent back to try again with, in order."""
    last = team.model_requests(name)[-1]
    return [str(part.content) for part in tool_returns(last) if part.outcome == "retried"]


def test_a_model_creates_updates_comments_searches_and_reads_tasks(
    retinue_team: TeamHarness,
    lead: ActorAddress,
) -> None:
    team = retinue_team
    team.add(planner("Dev"))

    plan = [
        {"title": "Design the parser", "description": "Grammar first.\nThen the AST."},
        {"title": "Build the parser", "owner": "Dev", "depends_on": ["#1"]},
        {"title": "Write the docs", "depends_on": ["#2", "#1"]},
    ]
    team.say(
        lead,
        script(
            call_directive("planning_create_tasks", {"tasks": plan}),
            call_directive("planning_update_task", {"task_id": "T1", "status": "doing"}),
            call_directive("planning_comment", {"task_id": "t1", "text": "Half done."}),
            call_directive(
                "planning_update_task",
                {"task_id": "1", "status": "done", "owner": "@Lead", "note": "Done."},
            ),
            call_directive("planning_search", {"query": "parser", "status": "open"}),
            call_directive("planning_get_task", {"task_id": "T2"}),
            answer="planned",
        ),
    )
    team.wait_idle(20)

    results = team.tool_results("@Lead")
    assert results[:5] == [
        "Created T1: Design the parser; T2: Build the parser; T3: Write the docs.",
        "@Lead changed T1: status todo → doing.",
        "Added a note to T1 (1 note).",
        "@Lead changed T1: status doing → done, owner nobody → @Lead, note added.",
        "1 task with 'parser' and with status open:\nT2: [todo] Build the parser — @Dev; after T1",
    ]
    shown = results[5].splitlines()
    assert shown[:4] == [
        "T2: Build the parser",
        "status: todo",
        "owner: @Dev",
        "depends on: T1 (done)",
    ]
    assert "needed by: T3" in shown
    assert [m.content for m in team.received_by("@Human")] == ["planned"]

    design = board_of(team).tasks["T1"]
    assert design.description == "Grammar first.\nThen the AST."
    assert [(n.author, n.text) for n in design.notes] == [
        ("@Lead", "Half done."),
        ("@Lead", "Done."),
    ]


def test_mistakes_the_model_can_correct_are_sent_back_as_retries(
    retinue_team: TeamHarness,
    lead: ActorAddress,
) -> None:
    team = retinue_team

    two = {"tasks": [{"title": "First"}, {"title": "Second", "depends_on": ["#1"]}]}
    team.say(
        lead,
        script(
            call_directive("planning_create_tasks", two),
            call_directive("planning_update_task", {"task_id": "T9", "status": "doing"}),
            call_directive("planning_update_task", {"task_id": "T1", "status": "doing"}),
            call_directive("planning_update_task", {"task_id": "T1", "owner": "@Zed"}),
            call_directive("planning_update_task", {"task_id": "T1", "owner": "@Lead"}),
            call_directive("planning_update_task", {"task_id": "T1", "depends_on": ["T2"]}),
            call_directive("planning_update_task", {"task_id": "T1", "depends_on": []}),
            call_directive("planning_update_task", {"task_id": "T2", "status": "done"}),
            call_directive("planning_update_task", {"task_id": "T2", "status": "blocked"}),
            answer="corrected",
        ),
    )
    team.wait_idle(20)

    assert retried(team, "@Lead") == [
        "there is no task T9; the tasks are T1 to T2",
        "@Zed is not a member of the team; the members are @Human, @Lead",
        "T1 cannot depend on T2: that would make a cycle (T1 → T2 → T1); a task cannot "
        "wait, even indirectly, for itself",
        "T2 cannot be done while T1 (doing) is not done: finish it first",
    ]
    assert [m.content for m in team.received_by("@Human")] == ["corrected"]
    board = board_of(team)
    assert [(t.id, t.status, t.owner) for t in board.tasks.values()] == [
        ("T1", "doing", "@Lead"),
        ("T2", "blocked", ""),
    ]


def test_once_retries_are_spent_the_refusal_is_the_answer_and_the_turn_goes_on(
    retinue_team: TeamHarness,
    lead: ActorAddress,
) -> None:
    team = retinue_team
    missing = call_directive("planning_get_task", {"task_id": "T4"})

    team.say(lead, script(missing, missing, answer="ok"))
    team.wait_idle(20)

    assert team.tool_results("@Lead") == [
        "there is no task T4; the board has no tasks yet",  # retried
        "Error: there is no task T4; the board has no tasks yet",  # retries spent
    ]
    assert [m.content for m in team.received_by("@Human")] == ["ok"]


def test_a_person_can_own_a_task_and_a_search_finds_unassigned_ones(
    retinue_team: TeamHarness,
    lead: ActorAddress,
) -> None:
    team = retinue_team
    tasks = {"tasks": [{"title": "Approve", "owner": "@Human"}, {"title": "Spare"}]}

    team.say(
        lead,
        script(
            call_directive("planning_create_tasks", tasks),
            call_directive("planning_search", {"owner": "unassigned"}),
            call_directive("planning_search", {"owner": "Human"}),
            call_directive("planning_search", {"query": "nothing like it"}),
        ),
    )
    team.wait_idle(20)

    assert team.tool_results("@Lead")[1:] == [
        "1 task owned by nobody:\nT2: [todo] Spare — unassigned",
        "1 task owned by @Human:\nT1: [todo] Approve — @Human",
        "No task with 'nothing like it'.",
    ]


def test_a_bad_status_filter_is_a_retry_naming_the_statuses(
    retinue_team: TeamHarness, lead: ActorAddress
) -> None:
    team = retinue_team

    team.say(lead, call_directive("planning_search", {"status": "finished"}))
    team.wait_idle(20)

    assert retried(team, "@Lead") == [
        "'finished' is not a status; use one of todo, doing, blocked, done, dropped, or "
        "open or closed"
    ]


def test_a_task_whose_owner_left_says_so(retinue_team: TeamHarness, lead: ActorAddress) -> None:
    team = retinue_team
    dev = team.add(planner("Dev"))
    team.command(lead, "/plan_add Build owner=@Dev")
    assert team.system.stop_actor(dev, timeout=10)
    team.wait_idle(20)

    team.say(lead, call_directive("planning_get_task", {"task_id": "T1"}))
    team.wait_idle(20)

    [shown] = team.tool_results("@Lead")
    assert "owner: @Dev (no longer in the team)" in shown.splitlines()


def test_the_reads_are_read_only_and_an_update_by_id_idempotent() -> None:
    from retinue import effect_metadata
    from retinue_planning import PlanningTool
    from retinue_planning.model_tools import build_tools

    metadata = {tool.name: tool.metadata for tool in build_tools(PlanningTool())}
    assert metadata == {
        "planning_create_tasks": None,  # run again, it would add the tasks twice
        "planning_update_task": effect_metadata("idempotent"),
        "planning_comment": None,
        "planning_search": effect_metadata("read_only"),
        "planning_get_task": effect_metadata("read_only"),
    }
