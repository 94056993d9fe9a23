"""The board as the model's tools: each answers in text and never ends the turn.

A refusal the model can fix (an unknown id or owner, a dependency cycle, a task marked done
before its dependencies) is a pydantic-ai `ModelRetry` while the tool has retries left, and
the same sentence as the tool's answer once they are spent, so a model that keeps getting
it wrong still finishes its turn. Anything else (the board not answering in time) is
logged and answered in words.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic_ai import RunContext, Tool
from retinue import effect_metadata
from retinue.kit import tool_answer

from retinue_planning.errors import PlanningError
from retinue_planning.tasks import NewTask, TaskChanges, TaskStatus

if TYPE_CHECKING:
    from retinue_planning.card import PlanningTool


def build_tools(card: PlanningTool) -> list[Tool[Any]]:
    """The five tools of a bound card, each acting on its team's board as its agent."""

    def planning_create_tasks(ctx: RunContext[Any], tasks: list[NewTask]) -> str:
        """Add tasks to the team's planning board; each gets an id (T1, T2, ...).

        Several tasks can be added in one call, all or none. A task may depend on tasks
        already on the board (T3) or on tasks earlier in the same call (#1 is the first).

        Args:
            tasks: The tasks to add, in order.
        """
        return tool_answer(ctx, lambda: card.create(tasks, _me(card)), PlanningError)

    def planning_update_task(
        ctx: RunContext[Any],
        task_id: str,
        *,
        status: TaskStatus | None = None,
        owner: str | None = None,
        title: str | None = None,
        description: str | None = None,
        depends_on: list[str] | None = None,
        note: str | None = None,
    ) -> str:
        """Change a task on the planning board; leave out what stays as it is.

        A task can only be done once every task it depends on is done.

        Args:
            task_id: The task's id, such as T3.
            status: todo, doing, blocked, done or dropped.
            owner: The member who owns it, such as @Ada; an empty string for nobody.
            title: A new title, one short line.
            description: A new description (it replaces the old one).
            depends_on: The ids of the tasks it depends on (replaces the list; [] for none).
            note: A note to add in the same change, saying why (recommended for blocked).
        """
        changes = TaskChanges(
            status=status,
            owner=owner,
            title=title,
            description=description,
            depends_on=depends_on,
            note=note,
        )
        return tool_answer(ctx, lambda: card.update(task_id, changes, _me(card)), PlanningError)

    def planning_comment(ctx: RunContext[Any], task_id: str, text: str) -> str:
        """Leave a note on a task for the team: progress, a finding, a question.

        Args:
            task_id: The task's id, such as T3.
            text: The note.
        """
        return tool_answer(ctx, lambda: card.comment(task_id, text, _me(card)), PlanningError)

    def planning_search(
        ctx: RunContext[Any], query: str = "", status: str | None = None, owner: str | None = None
    ) -> str:
        """Find tasks on the planning board; with no arguments, list them all.

        Args:
            query: Words that must all appear in a task (id, title, description, owner, notes).
            status: todo, doing, blocked, done, dropped, or open or closed for a group.
            owner: A member such as @Ada, or unassigned for the tasks nobody owns.
        """
        return tool_answer(ctx, lambda: card.search_planning(query, status, owner), PlanningError)

    def planning_get_task(ctx: RunContext[Any], task_id: str) -> str:
        """Show one task whole: description, dependencies with their status, notes.

        Args:
            task_id: The task's id, such as T3.
        """
        return tool_answer(ctx, lambda: card.show_task(task_id), PlanningError)

    # What running each twice does (the tool-effect ledger): reads change nothing, and an
    # update by id sets what it sets again; new tasks and comments would be added twice.
    read_only, idempotent = effect_metadata("read_only"), effect_metadata("idempotent")
    return [
        Tool(planning_create_tasks, takes_ctx=True),
        Tool(planning_update_task, takes_ctx=True, metadata=idempotent),
        Tool(planning_comment, takes_ctx=True),
        Tool(planning_search, takes_ctx=True, metadata=read_only),
        Tool(planning_get_task, takes_ctx=True, metadata=read_only),
    ]


def _me(card: PlanningTool) -> str:
    return card.host.myAddress.name
