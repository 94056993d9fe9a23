"""`PlanningTool`: a task board shared by the team, in every carrier's context.

One feature, four channels:

* TOOL_CALL — `planning_create_tasks`, `planning_update_task`, `planning_comment`,
  `planning_search` and `planning_get_task` for the model (see `model_tools`): a mistake it
  can correct (an unknown id or owner, a cycle, a task done before its dependencies) comes
  back as a retry with the reason, never as a failed turn;
* SYSTEM_PROMPT — one stable paragraph: what the board is and how to keep it current;
* LLM_CONTEXT — the board as keyed items (`T3: [doing] Write the parser — @Ada`), made once
  per board version and shared by every agent, so a change reaches each agent's next prompt
  as the changed tasks alone, and an unchanged board adds nothing;
* COMMAND — the spec's `planning_summary`, `get_planning_task` and `search_planning`, and
  `plan_add`, `plan_set`, `plan_note` and `plan_close` for people (`/plan_set T3
  status=done`). Refusals raise `PlanningError`, a `ValueError` the registry hands back to
  the operator.

The board itself is a `PlanningBoard` actor, one per team, started by the first card that
needs it (see `retinue_planning.board`). Changes are asks to it; reads (the context, a
search, a task) come from the state it published last, without asking.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr
from retinue import Actor, Message, ToolCard
from retinue.kit import ServiceSlot, cause_of, clean_line

from retinue_planning.board import (
    BoardHandle,
    BoardReply,
    PlanningBoard,
    open_board,
)
from retinue_planning.errors import PlanningError
from retinue_planning.events import PlanningChangedEvent
from retinue_planning.rendering import describe_change, planning_text, render_task, summary_items
from retinue_planning.rules import MAX_NAME, find
from retinue_planning.search import PlanningSearch, search_tasks
from retinue_planning.tasks import NewTask, PlanningTask, TaskChanges, TaskStatus
from retinue_planning.text import check_length, neutralize, shorten

if TYPE_CHECKING:
    from pydantic_ai import Tool

SECTION = "Planning board"
"""Heading of the board in context updates."""

SYSTEM_PROMPT = (
    "Your team shares a planning board of tasks (T1, T2, ...), each with a status (todo, "
    "doing, blocked, done, dropped), an owner and the tasks it depends on; its open tasks are "
    "shown to you under 'Planning board' in context updates. Use the planning_* tools to add "
    "tasks, to change them and to leave notes: set a task to doing when you start it, to "
    "blocked with a note saying why when you are stuck, and to done when it is finished."
)

_SHOWN_MEMBERS = 15


class PlanningResult(BaseModel):
    """What a change did: the events it published and one sentence per task for people."""

    model_config = ConfigDict(frozen=True)

    version: int
    """The board version after the change."""
    events: tuple[PlanningChangedEvent, ...] = ()
    message: str

    @property
    def tasks(self) -> tuple[PlanningTask, ...]:
        """The tasks as the change left them."""
        return tuple(event.task_after for event in self.events)

    def __str__(self) -> str:
        return self.message


class PlanningTool(ToolCard):
    """A task board shared by the team: tools, context summary and commands."""

    name: ClassVar[str] = "planning"

    summary_limit: int = Field(default=30, ge=1)
    """The most tasks the context lists; past it, open tasks first and closed ones counted."""
    search_limit: int = Field(default=50, ge=1)
    """The most tasks one search shows (it also says how many more matched)."""
    board_timeout: float = Field(default=30.0, gt=0)
    """Seconds a change waits for the board to answer."""

    _board: ServiceSlot[BoardHandle] = PrivateAttr(default_factory=lambda: ServiceSlot(open_board))

    # -- binding ---------------------------------------------------------------------------

    def on_unbind(self) -> None:
        self._board.clear()

    @property
    def board(self) -> BoardHandle:
        """The bound agent's board (its team's), started on first use if need be."""
        return self._board.open(self.host)

    # -- channels --------------------------------------------------------------------------

    def get_tools(self) -> Sequence[Tool[Any]]:
        from retinue_planning.model_tools import build_tools

        return build_tools(self)

    def get_system_prompts(self) -> Sequence[str]:
        return [SYSTEM_PROMPT]

    def get_context_states(self) -> Mapping[str, Callable[[], Mapping[str, str]]]:
        return {SECTION: self.planning_state}

    def get_commands(self) -> Sequence[Callable[..., Any]]:
        return [
            self.planning_summary,
            self.get_planning_task,
            self.search_planning,
            self.plan_add,
            self.plan_set,
            self.plan_note,
            self.plan_close,
        ]

    # -- context ---------------------------------------------------------------------------

    def planning_state(self) -> Mapping[str, str]:
        """The board as context items by task id: shared by every agent, made once a version."""
        return summary_items(self.board.current, self.summary_limit)

    # -- the spec's commands ---------------------------------------------------------------

    def planning_summary(self) -> str:
        """The whole planning board as text: every task, grouped by status."""
        return planning_text(self.board.current)

    def get_planning_task(self, task_id: str) -> PlanningTask:
        """One task with its description and notes, by id (T3)."""
        return find(self.board.current.tasks, task_id)

    def search_planning(
        self, query: str = "", status: str | None = None, owner: str | None = None
    ) -> PlanningSearch:
        """Search the board: words, a status (or open / closed), an owner (or unassigned)."""
        return search_tasks(self.board.current, query, status, owner, self.search_limit)

    # -- commands for people ---------------------------------------------------------------

    def plan_add(
        self,
        *title: str,
        owner: str = "",
        depends_on: list[str] | None = None,
        description: str = "",
        status: TaskStatus = "todo",
    ) -> PlanningResult:
        """Add a task: /plan_add Write the parser owner=@Ada depends_on=T1,T2."""
        draft = NewTask(
            title=" ".join(title),
            owner=owner,
            depends_on=list(depends_on or ()),
            description=description,
            status=status,
        )
        return self.create([draft], self._operator())

    def plan_set(
        self,
        task_id: str,
        *,
        status: TaskStatus | None = None,
        owner: str | None = None,
        title: str | None = None,
        description: str | None = None,
        depends_on: list[str] | None = None,
        note: str | None = None,
    ) -> PlanningResult:
        """Change a task: /plan_set T3 status=done owner=@Bob (owner=- or depends_on=- clears)."""
        if depends_on is not None and [d.strip() for d in depends_on] in (["-"], [""]):
            depends_on = []
        changes = TaskChanges(
            status=status,
            owner=owner,
            title=title,
            description=description,
            depends_on=depends_on,
            note=note,
        )
        return self.update(task_id, changes, self._operator())

    def plan_note(self, task_id: str, *text: str) -> PlanningResult:
        """Add a note to a task: /plan_note T3 the API key is in the vault."""
        return self.comment(task_id, " ".join(text), self._operator())

    def plan_close(self, task_id: str, *note: str, dropped: bool = False) -> PlanningResult:
        """Close a task as done (or dropped=yes), with an optional note: /plan_close T3 shipped."""
        changes = TaskChanges(status="dropped" if dropped else "done", note=" ".join(note) or None)
        return self.update(task_id, changes, self._operator())

    # -- the operations behind tools and commands ------------------------------------------

    def create(self, drafts: Sequence[NewTask], author: str) -> PlanningResult:
        """Create tasks (all or none) as `author`; `PlanningError` with the reason."""
        checked = []
        for position, draft in enumerate(drafts, start=1):
            try:
                checked.append(draft.model_copy(update={"owner": self.check_owner(draft.owner)}))
            except PlanningError as exc:
                label = f"task {position}" if len(drafts) > 1 else "the task"
                raise PlanningError(f"{label} ({_quoted(draft.title)}): {exc}") from None
        reply = self._change(lambda board: board.create_tasks(checked, author, cause_of(self.host)))
        made = "; ".join(f"{e.task_after.id}: {e.task_after.title}" for e in reply.events)
        return _result(reply, f"Created {made}.")

    def update(self, task_id: str, changes: TaskChanges, author: str) -> PlanningResult:
        """Change one task as `author`; `PlanningError` with the reason."""
        if changes.owner is not None:
            changes = changes.model_copy(update={"owner": self.check_owner(changes.owner)})
        reply = self._change(
            lambda board: board.update_task(task_id, changes, author, cause_of(self.host))
        )
        if not reply.events:
            task = find(self.board.current.tasks, task_id)
            return _result(reply, f"{task.id} already is as asked; nothing changed.")
        return _result(reply, _described(reply))

    def comment(self, task_id: str, text: str, author: str) -> PlanningResult:
        """Add a note to one task as `author`; `PlanningError` with the reason."""
        reply = self._change(
            lambda board: board.add_note(task_id, text, author, cause_of(self.host))
        )
        [event] = reply.events
        task = event.task_after
        count = task.note_count
        return _result(
            reply, f"Added a note to {task.id} ({count} note{'s' if count != 1 else ''})."
        )

    def show_task(self, task_id: str) -> str:
        """One task as text: its dependencies' status, whether its owner is still here."""
        board = self.board.current
        team = self.host.team
        members = team.directory.members if team is not None else None
        return render_task(find(board.tasks, task_id), board.tasks, members)

    def check_owner(self, owner: str) -> str:
        """An owner as `@Name` when it names a current member ("" or "-": nobody).

        Outside a team an agent may assign tasks only to itself.
        """
        name = clean_line(owner)
        if name in ("", "-", "@"):
            return ""
        name = check_length("the owner", name if name.startswith("@") else f"@{name}", MAX_NAME)
        host = self.host
        team = host.team
        if team is None:
            if name != host.myAddress.name:
                raise PlanningError(
                    f"{shorten(name, 60)} cannot own a task: outside a team only "
                    f"{host.myAddress.name} can"
                )
            return name
        members = team.directory.members
        if name not in members:
            raise PlanningError(
                f"{shorten(name, 60)} is not a member of the team; {_members_phrase(members)}"
            )
        return name

    # -- helpers ---------------------------------------------------------------------------

    def _change(self, call: Callable[[PlanningBoard], BoardReply]) -> BoardReply:
        reply = call(self.board.proxy(self.board_timeout))
        if reply.error is not None:
            raise PlanningError(reply.error)
        return reply

    def _operator(self) -> str:
        """Who a command acts for: the person who sent it, else this agent."""
        current = self._current_message()
        sender = current.sender if current is not None else None
        if sender is not None and sender.is_user_proxy:
            return sender.name
        return self.host.myAddress.name

    def _current_message(self) -> Message | None:
        host = self.host
        return host.current_message if isinstance(host, Actor) else None


def _result(reply: BoardReply, message: str) -> PlanningResult:
    return PlanningResult(version=reply.version, events=reply.events, message=neutralize(message))


def _described(reply: BoardReply) -> str:
    return "\n".join(
        describe_change(e.task_before, e.task_after, e.author) + "." for e in reply.events
    )


def _members_phrase(members: Mapping[str, object]) -> str:
    names = sorted(members)
    if not names:
        return "the team has no members"
    shown = ", ".join(names[:_SHOWN_MEMBERS])
    more = len(names) - _SHOWN_MEMBERS
    return f"the members are {shown}" + (f" and {more} more" if more > 0 else "")


def _quoted(text: str) -> str:
    return repr(shorten(clean_line(text), 60))
