"""The board's rules: what a create, an update or a note does, and what it refuses.

Pure functions of the tasks as they are and the change asked for: they return the changes
to make (`Change(before, after)`) or raise `PlanningError` with a reason a model can act on,
and change nothing themselves. The board actor applies what they return, one call at a
time; the same functions are what tests check the wording against.

The rules the board keeps:

* ids are `T1`, `T2`, ... in the order tasks were created, and are never reused;
* a dependency names a task that exists, never the task itself, and no chain of
  dependencies comes back to where it started;
* a task is `done` only when every task it depends on is `done`, and a `done` task cannot
  be reopened while a `done` task depends on it;
* texts are cleaned and capped (see `retinue_planning.text`); a task keeps its latest
  `MAX_NOTES` notes (the events keep every one).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from retinue.kit import clean_block, clean_line

from retinue_planning.errors import PlanningError
from retinue_planning.tasks import (
    NewTask,
    PlanningNote,
    PlanningTask,
    TaskChanges,
    normal_id,
    task_id,
)
from retinue_planning.text import (
    MAX_DESCRIPTION,
    MAX_NOTE,
    MAX_TITLE,
    check_length,
)

MAX_TASKS = 10_000
"""The most tasks one board holds (closed ones count: nothing is ever deleted)."""
MAX_BATCH = 50
"""The most tasks one call creates."""
MAX_DEPENDENCIES = 50
"""The most tasks one task may depend on."""
MAX_NOTES = 50
"""The most notes a task keeps; older ones are let go (and counted in `earlier_notes`)."""
MAX_NAME = 100
"""The longest owner or author name."""

Tasks = Mapping[str, PlanningTask]


@dataclass(frozen=True, slots=True)
class Change:
    """One task before (None: it is new) and after a change."""

    before: PlanningTask | None
    after: PlanningTask


def create_tasks(
    tasks: Tasks, next_number: int, drafts: Sequence[NewTask], author: str, when: datetime
) -> list[Change]:
    """The tasks `drafts` describe, numbered from `next_number`, all or none."""
    if not drafts:
        raise PlanningError("no tasks were given; give at least one with a title")
    if len(drafts) > MAX_BATCH:
        raise PlanningError(
            f"{len(drafts)} tasks were given at once; the most is {MAX_BATCH} per call"
        )
    if len(tasks) + len(drafts) > MAX_TASKS:
        raise PlanningError(
            f"the board holds {len(tasks):,} tasks and allows at most {MAX_TASKS:,}; "
            "nothing was created"
        )
    author = _name("the author", author)
    made: list[PlanningTask] = []
    for position, draft in enumerate(drafts, start=1):
        label = f"task {position}" if len(drafts) > 1 else "the task"
        new_id = task_id(next_number + position - 1)
        try:
            title = _title(draft.title)
            description = _description(draft.description)
            owner = _owner(draft.owner)
            depends_on = _dependencies(draft.depends_on, tasks, new_id, batch=[t.id for t in made])
        except PlanningError as exc:
            raise PlanningError(f"{label} ({_quoted(draft.title)}): {exc}") from None
        task = PlanningTask(
            id=new_id,
            title=title,
            description=description,
            status=draft.status,
            owner=owner,
            depends_on=depends_on,
            created_at=when,
            created_by=author,
            updated_at=when,
            updated_by=author,
        )
        if task.status == "done":
            everything = {**tasks, **{t.id: t for t in made}}
            try:
                _check_done(task, everything)
            except PlanningError as exc:
                raise PlanningError(f"{label} ({_quoted(draft.title)}): {exc}") from None
        made.append(task)
    return [Change(None, task) for task in made]


def update_task(
    tasks: Tasks, task: str, changes: TaskChanges, author: str, when: datetime
) -> Change | None:
    """The change to one task, or None when it already is as asked (and no note is added)."""
    before = find(tasks, task)
    if changes.is_empty():
        raise PlanningError(
            f"nothing to change on {before.id}: give a status, owner, title, description, "
            "depends_on or a note"
        )
    author = _name("the author", author)
    update: dict[str, object] = {}
    if changes.title is not None:
        update["title"] = _title(changes.title)
    if changes.description is not None:
        update["description"] = _description(changes.description)
    if changes.owner is not None:
        update["owner"] = _owner(changes.owner)
    if changes.status is not None:
        update["status"] = changes.status
    if changes.depends_on is not None:
        depends_on = _dependencies(changes.depends_on, tasks, before.id)
        _check_no_cycle(before.id, depends_on, tasks)
        update["depends_on"] = depends_on
    after = before.model_copy(update=update)
    note = _note_text(changes.note) if changes.note is not None else None
    if note is not None and not _last_note_is(before, author, note):
        after = _with_note(after, note, author, when)
    elif after == before:  # as asked already: an update run again changes nothing
        return None
    if after.status == "done":
        _check_done(after, tasks)
    if before.status == "done" and after.status != "done":
        _check_may_reopen(before, tasks)
    after = after.model_copy(update={"updated_at": when, "updated_by": author})
    return Change(before, after)


def add_note(tasks: Tasks, task: str, text: str, author: str, when: datetime) -> Change:
    """A note added to one task."""
    before = find(tasks, task)
    author = _name("the author", author)
    after = _with_note(before, _note_text(text), author, when)
    after = after.model_copy(update={"updated_at": when, "updated_by": author})
    return Change(before, after)


def find(tasks: Tasks, task: str) -> PlanningTask:
    """The task with this id (`T3`, `t3` or `3`); `PlanningError` naming what exists."""
    wanted = normal_id(task)
    found = tasks.get(wanted)
    if found is None:
        raise PlanningError(f"there is no task {wanted}; {_what_exists(tasks)}")
    return found


# -- checks ----------------------------------------------------------------------------------


def _title(value: str) -> str:
    title = clean_line(value)
    if not title:
        raise PlanningError("a task needs a title (one short line saying what is to be done)")
    return check_length("the title", title, MAX_TITLE)


def _description(value: str) -> str:
    return check_length("the description", clean_block(value), MAX_DESCRIPTION)


def _note_text(value: str) -> str:
    text = clean_block(value)
    if not text:
        raise PlanningError("the note is empty; write what others should know")
    return check_length("the note", text, MAX_NOTE)


def _name(what: str, value: str) -> str:
    name = clean_line(value)
    if not name:
        raise PlanningError(f"{what} has no name")
    return check_length(what, name, MAX_NAME)


def _owner(value: str) -> str:
    """An owner as the board writes it: `@Name`, or empty for nobody.

    Whether the name is a member is the card's to check (it sees the team); here only its
    shape is.
    """
    owner = clean_line(value)
    if owner in ("", "-", "@"):
        return ""
    owner = owner if owner.startswith("@") else f"@{owner}"
    if " " in owner:
        raise PlanningError(f"{_quoted(owner)} is not a member name (names have no spaces)")
    return check_length("the owner", owner, MAX_NAME)


def _dependencies(
    values: Iterable[str], tasks: Tasks, own: str, batch: Sequence[str] = ()
) -> tuple[str, ...]:
    """Dependencies as ids, each once, in the order given; `#n` names the n-th of `batch`."""
    found: dict[str, None] = {}
    for raw in values:
        value = raw.strip()
        if value.startswith("#"):
            found[_batch_reference(value, batch)] = None
            continue
        dependency = normal_id(value)
        if dependency == own:
            raise PlanningError(f"{own} cannot depend on itself")
        if dependency not in tasks and dependency not in batch:
            raise PlanningError(
                f"it depends on {dependency}, which does not exist; {_what_exists(tasks)}"
            )
        found[dependency] = None
    if len(found) > MAX_DEPENDENCIES:
        raise PlanningError(
            f"{len(found)} dependencies were given; a task may depend on at most "
            f"{MAX_DEPENDENCIES} (split the task, or depend on a task that gathers them)"
        )
    return tuple(found)


def _batch_reference(value: str, batch: Sequence[str]) -> str:
    """The id of the task `#n` names: the n-th created earlier in the same call."""
    digits = value[1:].strip()
    if digits.isdigit() and 0 < int(digits) <= len(batch):
        return batch[int(digits) - 1]
    if not batch:
        raise PlanningError(
            f"{value!r} names no earlier task of this call (#n names the n-th task "
            "created before this one in the same call)"
        )
    raise PlanningError(
        f"{value!r} names no earlier task of this call; #1 to #{len(batch)} are the tasks before it"
    )


def _check_no_cycle(own: str, depends_on: Sequence[str], tasks: Tasks) -> None:
    """Refuse dependencies through which `own` would come to depend on itself."""
    for start in depends_on:
        path = _path_to(start, own, tasks)
        if path is not None:
            loop = " → ".join([own, *path])
            raise PlanningError(
                f"{own} cannot depend on {start}: that would make a cycle ({loop}); "
                "a task cannot wait, even indirectly, for itself"
            )


def _path_to(start: str, goal: str, tasks: Tasks) -> list[str] | None:
    """The ids from `start` to `goal` along dependencies, or None when `goal` is not reached."""
    came_from: dict[str, str | None] = {start: None}
    stack = [start]
    while stack:
        current = stack.pop()
        if current == goal:
            path = [current]
            step = came_from[current]
            while step is not None:
                path.append(step)
                step = came_from[step]
            return list(reversed(path))
        task = tasks.get(current)
        if task is None:
            continue
        for following in task.depends_on:
            if following not in came_from:
                came_from[following] = current
                stack.append(following)
    return None


def _check_done(task: PlanningTask, tasks: Tasks) -> None:
    waiting = [tasks[d] for d in task.depends_on if d in tasks and tasks[d].status != "done"]
    if not waiting:
        return
    listed = ", ".join(f"{t.id} ({t.status})" for t in waiting)
    one = len(waiting) == 1
    verb = "is" if one else "are"
    hint = "finish it first" if one else "finish them first"
    if any(t.status == "dropped" for t in waiting):
        hint += ", or take the dropped " + ("one" if one else "ones") + " out of its depends_on"
    raise PlanningError(f"{task.id} cannot be done while {listed} {verb} not done: {hint}")


def _check_may_reopen(task: PlanningTask, tasks: Tasks) -> None:
    done_after = sorted(
        (t for t in tasks.values() if t.status == "done" and task.id in t.depends_on),
        key=lambda t: t.number,
    )
    if done_after:
        listed = ", ".join(t.id for t in done_after)
        raise PlanningError(
            f"{task.id} cannot leave done while {listed}, which depend on it, "
            f"{'is' if len(done_after) == 1 else 'are'} done; reopen {listed} first"
        )


def _last_note_is(task: PlanningTask, author: str, text: str) -> bool:
    """Whether the task's latest note is this one (an update repeated adds it once)."""
    return bool(task.notes) and task.notes[-1].author == author and task.notes[-1].text == text


def _with_note(task: PlanningTask, text: str, author: str, when: datetime) -> PlanningTask:
    notes = (*task.notes, PlanningNote(author=author, time=when, text=text))
    let_go = max(0, len(notes) - MAX_NOTES)
    return task.model_copy(
        update={"notes": notes[let_go:], "earlier_notes": task.earlier_notes + let_go}
    )


def _what_exists(tasks: Tasks) -> str:
    if not tasks:
        return "the board has no tasks yet"
    numbers = [t.number for t in tasks.values()]
    return f"the tasks are T{min(numbers)} to T{max(numbers)}"


def _quoted(text: str) -> str:
    text = clean_line(text)
    return repr(text if len(text) <= 60 else text[:59] + "…")
