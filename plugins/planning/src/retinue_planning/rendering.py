"""How the board reads: one-line tasks, whole tasks, the context summary, the full text.

Pure functions of tasks and snapshots. Everything returned here has been through
`neutralize`, so text agents wrote cannot pass for a message fence wherever it is shown.
"""

from __future__ import annotations

from collections.abc import Container, Iterable, Mapping, Sequence
from datetime import UTC, datetime

from retinue import FrozenMap

from retinue_planning.state import PlanningBoardState
from retinue_planning.tasks import (
    CLOSED_STATUSES,
    OPEN_STATUSES,
    STATUSES,
    PlanningTask,
)
from retinue_planning.text import neutralize, shorten

_OPEN = frozenset(OPEN_STATUSES)
_ORDER = {status: rank for rank, status in enumerate((*OPEN_STATUSES, *CLOSED_STATUSES))}

MORE_KEY = "more open"
"""Summary item counting the open tasks past the limit."""
CLOSED_KEY = "closed"
"""Summary item counting the closed tasks of a board too big to list them."""


def by_status(tasks: Iterable[PlanningTask]) -> list[PlanningTask]:
    """Open tasks first (doing, blocked, todo), then done and dropped; by id within each."""
    return sorted(tasks, key=lambda t: (_ORDER[t.status], t.number))


def task_line(task: PlanningTask) -> str:
    """A task in one line, without its id: `[doing] Write the parser — @Ada; after T1; 2 notes`."""
    parts = [f"[{task.status}] {task.title} — {task.owner or 'unassigned'}"]
    if task.depends_on:
        parts.append(f"after {', '.join(task.depends_on)}")
    if task.note_count:
        parts.append(f"{task.note_count} note{'s' if task.note_count != 1 else ''}")
    return neutralize("; ".join(parts))


def listing_line(task: PlanningTask) -> str:
    """A task in one line, with its id, for lists."""
    return f"{task.id}: {task_line(task)}"


def render_task(
    task: PlanningTask,
    tasks: Mapping[str, PlanningTask] | None = None,
    members: Container[str] | None = None,
) -> str:
    """A whole task: fields, description and notes.

    With `tasks`, the status of its dependencies and which tasks need it; with `members`,
    whether its owner is still in the team.
    """
    owner = task.owner or "unassigned"
    if task.owner and members is not None and task.owner not in members:
        owner += " (no longer in the team)"
    lines = [f"{task.id}: {task.title}", f"status: {task.status}", f"owner: {owner}"]
    if task.depends_on:
        if tasks is None:
            lines.append(f"depends on: {', '.join(task.depends_on)}")
        else:
            shown = [
                f"{d} ({tasks[d].status})" if d in tasks else f"{d} (unknown)"
                for d in task.depends_on
            ]
            lines.append(f"depends on: {', '.join(shown)}")
    if tasks is not None:
        after = [t.id for t in tasks.values() if task.id in t.depends_on]
        if after:
            lines.append(f"needed by: {', '.join(after)}")
    lines.append(f"created: {_when(task.created_at)} by {task.created_by}")
    lines.append(f"updated: {_when(task.updated_at)} by {task.updated_by}")
    if task.description:
        lines.extend(["description:", _indent(task.description)])
    if task.notes:
        heading = f"notes ({task.note_count}"
        heading += f", the latest {len(task.notes)} shown):" if task.earlier_notes else "):"
        lines.append(heading)
        for note in task.notes:
            lines.append(f"- {_when(note.time)} {note.author}:")
            lines.append(_indent(note.text, "    "))
    return neutralize("\n".join(lines))


def summary_items(board: PlanningBoardState, limit: int) -> FrozenMap[str, str]:
    """The board as context items, keyed by task id, for at most `limit` tasks.

    A board of up to `limit` tasks is listed whole, open tasks first. A bigger one lists
    its open tasks (up to `limit`, work in hand first) and only counts the rest, so the
    summary stays small however long the team has been working. Made once per board
    version and limit, and shared by every agent reading it: after a change, the agents
    whose turns start together wait for one build instead of each making its own.
    """
    key = ("retinue_planning.summary", limit)
    return board.tasks.memo_once(key, lambda _: _summary(board, limit))


def _summary(board: PlanningBoardState, limit: int) -> FrozenMap[str, str]:
    tasks = board.tasks
    if len(tasks) <= limit:
        return FrozenMap({t.id: task_line(t) for t in by_status(tasks.values())})
    open_tasks: list[PlanningTask] = []
    closed: list[PlanningTask] = []
    for task in tasks.values():  # one pass; only the open tasks are sorted
        (open_tasks if task.status in _OPEN else closed).append(task)
    open_tasks = by_status(open_tasks)
    items = {t.id: task_line(t) for t in open_tasks[:limit]}
    hidden = open_tasks[limit:]
    if hidden:
        items[MORE_KEY] = (
            f"{len(hidden)} more open tasks are not listed ({_counts(hidden)}); "
            "search_planning or planning_search finds them"
        )
    if closed:
        items[CLOSED_KEY] = (
            f"{_counts(closed)}, not listed; get_planning_task or planning_get_task shows one"
        )
    return FrozenMap(items)


def planning_text(board: PlanningBoardState, limit: int = 500) -> str:
    """The whole board as text for people: counts, then every task by status (up to `limit`)."""
    tasks = by_status(board.tasks.values())
    if not tasks:
        return "The planning board has no tasks yet."
    lines = [f"Planning board, version {board.version}: {len(tasks)} tasks ({_counts(tasks)})."]
    for status in STATUSES if len(tasks) <= limit else OPEN_STATUSES:
        group = [t for t in tasks if t.status == status]
        if group:
            lines.append("")
            lines.append(f"{status} ({len(group)}):")
            lines.extend(f"- {listing_line(t)}" for t in group[:limit])
            if len(group) > limit:
                lines.append(f"- … {len(group) - limit} more")
    if len(tasks) > limit:
        closed = [t for t in tasks if not t.is_open]
        if closed:
            lines.extend(["", f"closed: {_counts(closed)} (not listed)."])
    return "\n".join(lines)


def describe_change(before: PlanningTask | None, after: PlanningTask, author: str) -> str:
    """One line saying what a change did: `@Ada created T3 'Write the parser'`, ..."""
    title = shorten(after.title, 60)
    if before is None:
        return neutralize(f"{author} created {after.id} {title!r} ({after.status})")
    said: list[str] = []
    if before.status != after.status:
        said.append(f"status {before.status} → {after.status}")
    if before.owner != after.owner:
        said.append(f"owner {before.owner or 'nobody'} → {after.owner or 'nobody'}")
    if before.title != after.title:
        said.append(f"title → {title!r}")
    if before.description != after.description:
        said.append("description changed")
    if before.depends_on != after.depends_on:
        said.append(f"depends on {', '.join(after.depends_on) or 'nothing'}")
    if after.note_count > before.note_count:
        said.append("note added")
    return neutralize(f"{author} changed {after.id}: {', '.join(said) or 'nothing'}")


def _counts(tasks: Sequence[PlanningTask]) -> str:
    counted = {status: 0 for status in (*OPEN_STATUSES, *CLOSED_STATUSES)}
    for task in tasks:
        counted[task.status] += 1
    return ", ".join(f"{n} {status}" for status, n in counted.items() if n)


def _when(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M UTC")


def _indent(text: str, prefix: str = "  ") -> str:
    return "\n".join(prefix + line if line else line for line in text.splitlines())
