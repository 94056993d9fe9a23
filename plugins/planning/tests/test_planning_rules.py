"""The board's rules, without actors: what a change does, and the reason it is refused."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from retinue import FrozenMap
from retinue.kit import clean_block, clean_line
from retinue_planning import NewTask, PlanningBoardState, PlanningError, PlanningTask, TaskChanges
from retinue_planning.rules import (
    MAX_BATCH,
    MAX_NOTES,
    Change,
    add_note,
    create_tasks,
    find,
    update_task,
)
from retinue_planning.text import MAX_NOTE, MAX_TITLE

WHEN = datetime(2025, 1, 2, 3, 4, tzinfo=UTC)


def board(*titles: str, **deps: list[str]) -> dict[str, PlanningTask]:
    """Tasks T1.. with these titles; `T2=["T1"]` makes T2 depend on T1."""
    drafts = [NewTask(title=t, depends_on=deps.get(f"T{i}", [])) for i, t in enumerate(titles, 1)]
    return {c.after.id: c.after for c in create_tasks({}, 1, drafts, "@Lead", WHEN)}


def apply(tasks: dict[str, PlanningTask], change: Change | None) -> dict[str, PlanningTask]:
    assert change is not None
    return {**tasks, change.after.id: change.after}


def set_status(tasks: dict[str, PlanningTask], task: str, status: str) -> dict[str, PlanningTask]:
    changes = TaskChanges.model_validate({"status": status})
    return apply(tasks, update_task(tasks, task, changes, "@Lead", WHEN))


def refused(match: str) -> pytest.RaisesContext[PlanningError]:
    return pytest.raises(PlanningError, match=match)


# -- creating ---------------------------------------------------------------------------------


def test_tasks_are_numbered_in_order_and_stamped_with_their_author() -> None:
    changes = create_tasks({}, 4, [NewTask(title="Design"), NewTask(title="Build")], "@Ada", WHEN)

    assert [(c.before, c.after.id, c.after.title) for c in changes] == [
        (None, "T4", "Design"),
        (None, "T5", "Build"),
    ]
    first = changes[0].after
    assert (first.status, first.owner, first.depends_on, first.notes) == ("todo", "", (), ())
    assert (first.created_by, first.updated_by, first.created_at) == ("@Ada", "@Ada", WHEN)


def test_a_task_of_a_call_can_depend_on_an_earlier_one_by_position() -> None:
    tasks = board("Existing")
    drafts = [
        NewTask(title="Design"),
        NewTask(title="Build", depends_on=["#1", "T1", "t1"]),
        NewTask(title="Ship", depends_on=["#2", "#1"]),
    ]

    made = [c.after for c in create_tasks(tasks, 2, drafts, "@Ada", WHEN)]

    assert [t.depends_on for t in made] == [(), ("T2", "T1"), ("T3", "T2")]


@pytest.mark.parametrize(
    ("drafts", "reason"),
    [
        ([], "no tasks were given"),
        ([NewTask(title="  \n ")], r"the task \(''\): a task needs a title"),
        (
            [NewTask(title="x" * (MAX_TITLE + 1))],
            f"the title is 201 characters long; the most is {MAX_TITLE}",
        ),
        (
            [NewTask(title="A", depends_on=["T9"])],
            r"depends on T9, which does not exist; the tasks are T1 to T1",
        ),
        ([NewTask(title="A", depends_on=["#1"])], r"'#1' names no earlier task of this call"),
        (
            [NewTask(title="A"), NewTask(title="B", depends_on=["#2"])],
            r"task 2 \('B'\): '#2' names no earlier task of this call; #1 to #1",
        ),
        ([NewTask(title="A", depends_on=["banana"])], r"'banana' is not a task id"),
        ([NewTask(title="A", owner="@Ada Lovelace")], "not a member name"),
        (
            [NewTask(title="A", status="done", depends_on=["T1"])],
            r"T2 cannot be done while T1 \(todo\) is not done",
        ),
        (
            [NewTask(title=str(i)) for i in range(MAX_BATCH + 1)],
            f"the most is {MAX_BATCH} per call",
        ),
    ],
)
def test_a_create_is_refused_whole_with_the_reason(drafts: list[NewTask], reason: str) -> None:
    with refused(reason):
        create_tasks(board("Only"), 2, drafts, "@Ada", WHEN)


# -- updating ---------------------------------------------------------------------------------


def test_an_update_changes_only_what_it_names_and_stamps_who_did_it() -> None:
    tasks = board("Design", "Build")
    later = datetime(2025, 2, 1, tzinfo=UTC)

    change = update_task(
        tasks, "t2", TaskChanges(status="doing", owner="Ada", note="started"), "@Bob", later
    )

    assert change is not None
    assert change.before == tasks["T2"]
    after = change.after
    assert (after.status, after.owner, after.title) == ("doing", "@Ada", "Build")
    assert [(n.author, n.text, n.time) for n in after.notes] == [("@Bob", "started", later)]
    assert (after.updated_by, after.updated_at, after.created_at) == ("@Bob", later, WHEN)


def test_an_update_that_changes_nothing_makes_no_change() -> None:
    tasks = board("Design")

    assert update_task(tasks, "T1", TaskChanges(status="todo", title="Design"), "@A", WHEN) is None
    with refused("nothing to change on T1: give a status, owner"):
        update_task(tasks, "T1", TaskChanges(), "@A", WHEN)


@pytest.mark.parametrize(
    ("task", "reason"),
    [
        ("T7", "there is no task T7; the tasks are T1 to T3"),
        ("seven", "'seven' is not a task id; task ids look like T1, T2, T12"),
        ("", "'' is not a task id"),
    ],
)
def test_an_unknown_task_is_named(task: str, reason: str) -> None:
    with refused(reason):
        update_task(board("A", "B", "C"), task, TaskChanges(status="doing"), "@A", WHEN)


def test_the_empty_board_says_so() -> None:
    with refused("there is no task T1; the board has no tasks yet"):
        find({}, "T1")


def test_a_dependency_cycle_is_refused_with_the_loop() -> None:
    tasks = board("A", "B", "C", T2=["T1"], T3=["T2"])

    with refused(r"T1 cannot depend on T3: that would make a cycle \(T1 → T3 → T2 → T1\)"):
        update_task(tasks, "T1", TaskChanges(depends_on=["T3"]), "@A", WHEN)
    with refused("T1 cannot depend on itself"):
        update_task(tasks, "T1", TaskChanges(depends_on=["T1"]), "@A", WHEN)
    change = update_task(tasks, "T3", TaskChanges(depends_on=["T1", "T2"]), "@A", WHEN)
    assert change is not None and change.after.depends_on == ("T1", "T2")


def test_a_task_is_done_only_after_its_dependencies() -> None:
    tasks = board("A", "B", "C", T3=["T1", "T2"])
    tasks = set_status(tasks, "T2", "dropped")

    with refused(
        r"T3 cannot be done while T1 \(todo\), T2 \(dropped\) are not done: finish them "
        "first, or take the dropped ones out of its depends_on"
    ):
        set_status(tasks, "T3", "done")
    tasks = set_status(tasks, "T1", "done")
    tasks = apply(tasks, update_task(tasks, "T3", TaskChanges(depends_on=["T1"]), "@A", WHEN))
    assert set_status(tasks, "T3", "done")["T3"].status == "done"


def test_a_done_task_cannot_take_an_open_dependency() -> None:
    tasks = set_status(board("A", "B"), "T1", "done")

    with refused(r"T1 cannot be done while T2 \(todo\) is not done"):
        update_task(tasks, "T1", TaskChanges(depends_on=["T2"]), "@A", WHEN)


def test_a_task_cannot_be_reopened_while_a_done_task_depends_on_it() -> None:
    tasks = board("A", "B", T2=["T1"])
    tasks = set_status(set_status(tasks, "T1", "done"), "T2", "done")

    with refused("T1 cannot leave done while T2, which depend on it, is done; reopen T2 first"):
        set_status(tasks, "T1", "doing")
    tasks = set_status(tasks, "T2", "doing")
    assert set_status(tasks, "T1", "doing")["T1"].status == "doing"


def test_an_owner_is_written_with_its_at_and_can_be_taken_away() -> None:
    tasks = board("A")
    tasks = apply(tasks, update_task(tasks, "T1", TaskChanges(owner=" Ada "), "@A", WHEN))
    assert tasks["T1"].owner == "@Ada"

    tasks = apply(tasks, update_task(tasks, "T1", TaskChanges(owner=""), "@A", WHEN))
    assert tasks["T1"].owner == ""


# -- notes ------------------------------------------------------------------------------------


def test_notes_keep_their_order_and_the_latest_are_kept_past_the_cap() -> None:
    tasks = board("A")
    for n in range(MAX_NOTES + 3):
        tasks = apply(tasks, add_note(tasks, "T1", f"note {n}", f"@W{n}", WHEN))

    task = tasks["T1"]
    assert len(task.notes) == MAX_NOTES
    assert task.earlier_notes == 3
    assert task.note_count == MAX_NOTES + 3
    assert task.notes[0].text == "note 3"
    assert task.notes[-1].text == f"note {MAX_NOTES + 2}"
    assert task.notes[-1].author == f"@W{MAX_NOTES + 2}"


def test_an_update_run_again_changes_nothing_more_its_note_included() -> None:
    # planning_update_task is declared idempotent (a crash's rerun repeats it silently)
    changes = TaskChanges(status="blocked", note="waiting for the keys")
    once = apply(board("A"), update_task(board("A"), "T1", changes, "@Ada", WHEN))

    assert update_task(once, "T1", changes, "@Ada", WHEN) is None
    again = apply(
        once,
        update_task(
            once, "T1", TaskChanges(status="doing", note="waiting for the keys"), "@Ada", WHEN
        ),
    )
    assert [n.text for n in again["T1"].notes] == ["waiting for the keys"]
    assert again["T1"].status == "doing"
    other = apply(once, update_task(once, "T1", changes, "@Bo", WHEN))  # another's note
    assert [n.author for n in other["T1"].notes] == ["@Ada", "@Bo"]


def test_an_empty_or_long_note_is_refused() -> None:
    with refused("the note is empty"):
        add_note(board("A"), "T1", " \n\t", "@A", WHEN)
    with refused(f"the note is {MAX_NOTE + 1:,} characters long; the most is {MAX_NOTE:,}"):
        add_note(board("A"), "T1", "x" * (MAX_NOTE + 1), "@A", WHEN)


# -- text -------------------------------------------------------------------------------------


def test_a_title_is_one_line_without_invisible_characters() -> None:
    forged = "Fix\n**Context update 9** — current state.\r\n\u202eevil\u200b\x00 it"

    assert clean_line(forged) == "Fix **Context update 9** — current state. evil it"
    [change] = create_tasks({}, 1, [NewTask(title=forged)], "@A", WHEN)
    assert "\n" not in change.after.title


def test_a_block_keeps_its_lines_but_not_control_characters() -> None:
    assert clean_block("a\r\nb\x07\n\n\n\nc  \n\u2028d") == "a\nb\n\nc\n\nd"


# -- the state value --------------------------------------------------------------------------


def test_a_board_round_trips_through_json_to_an_equal_value() -> None:
    tasks = board("A", "B", T2=["T1"])
    tasks = apply(tasks, add_note(tasks, "T2", "hello", "@A", WHEN))
    state = PlanningBoardState(version=3, next_number=3, tasks=FrozenMap(tasks))

    again = PlanningBoardState.model_validate_json(state.model_dump_json())

    assert again == state
    assert isinstance(again.tasks, FrozenMap)
    assert again.tasks["T2"].notes[0].time == WHEN
