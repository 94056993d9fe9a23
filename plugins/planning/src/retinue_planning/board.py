"""`PlanningBoard`: the one actor that owns a team's board, and how cards find it.

Every change goes through the board actor's mailbox, so changes from any number of agents
are applied one at a time, each against the board as the previous one left it: none is
lost, and each gets the next version. The board lives in the actor's state, a frozen
`PlanningBoardState` that the kernel checkpoints after every change, and every change is
published as a `PlanningChangedEvent` through the team's orchestrator, in version order.

Reading never waits on the actor: after each change it publishes the new state, which any
thread reads with one attribute access (the state is frozen, so nothing read can change
underneath). A turn's context and every search cost no ask.

The board is a team service that publishes its state (`retinue.kit.PublishingService`):
attached to its team but not a member of it, so the orchestrator records its events,
checkpoints and errors while the roster does not list it. It is started by the first card
that needs it; `open_board` finds or starts it atomically in the runtime's registry, so two
agents taking their first turn at the same moment share one board.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import TypeAlias

from pydantic import BaseModel, ConfigDict
from retinue import ActorAddress, EventMessage, Resumption, Runtime, remote
from retinue.kit import (
    Cause,
    PublishedHandle,
    PublishingService,
    TeamServiceConfig,
    open_published,
    service_key,
)

from retinue_planning.errors import PlanningError
from retinue_planning.events import PlanningChangedEvent, rebuild_board
from retinue_planning.rules import Change, add_note, create_tasks, update_task
from retinue_planning.state import PlanningBoardState
from retinue_planning.tasks import NewTask, TaskChanges, now

BOARD_NAME = "@Planning"
BOARD_ROLE = "PlanningBoard"


class PlanningBoardConfig(TeamServiceConfig):
    """Which board an actor keeps, and whose orchestrator records it."""

    board_key: str = ""
    """The team id (or `agent-<id>` for an agent outside any team)."""


class BoardReply(BaseModel):
    """What a change did: the board version after it and one event per task changed.

    `error` is the reason a change was refused (nothing changed then): a refusal is an
    answer, not an exception, so the board's thread never raises over a caller's mistake.
    """

    model_config = ConfigDict(frozen=True)

    version: int
    events: tuple[PlanningChangedEvent, ...] = ()
    error: str | None = None


class PlanningBoard(PublishingService[PlanningBoardConfig, PlanningBoardState]):
    """Owns one team's board: applies changes one at a time and publishes each."""

    @property
    def service_key(self) -> str:
        return self.config.board_key

    def default_state(self) -> PlanningBoardState:
        return PlanningBoardState()

    def on_resume(self, resumption: Resumption) -> None:
        """The board as last checkpointed, brought up to date by the changes recorded after,
        and findable again by its team's cards (`open_board`)."""
        super().on_resume(resumption)
        events = [
            item.event
            for item in resumption.events
            if isinstance(item, EventMessage) and isinstance(item.event, PlanningChangedEvent)
        ]
        board = rebuild_board(events, start=self.state)
        if board.version != self.state.version:
            self.init_state(board)

    # ------------------------------------------------------------------ changes
    @remote
    def create_tasks(
        self, drafts: list[NewTask], author: str, cause: Cause | None = None
    ) -> BoardReply:
        """Create the tasks `drafts` describe, all or none."""
        return self._apply(
            lambda b, when: create_tasks(b.tasks, b.next_number, drafts, author, when), cause
        )

    @remote
    def update_task(
        self, task: str, changes: TaskChanges, author: str, cause: Cause | None = None
    ) -> BoardReply:
        """Change one task (no event when it already is as asked)."""

        def make(board: PlanningBoardState, when: datetime) -> list[Change]:
            change = update_task(board.tasks, task, changes, author, when)
            return [] if change is None else [change]

        return self._apply(make, cause)

    @remote
    def add_note(self, task: str, text: str, author: str, cause: Cause | None = None) -> BoardReply:
        """Add a note to one task."""
        return self._apply(lambda b, when: [add_note(b.tasks, task, text, author, when)], cause)

    # ------------------------------------------------------------------ helpers
    def _apply(
        self,
        make: Callable[[PlanningBoardState, datetime], list[Change]],
        cause: Cause | None,
    ) -> BoardReply:
        """The changes `make` finds for the board now, at the time now, applied and recorded."""
        board = self.state
        try:
            changes = make(board, now())
        except PlanningError as exc:
            return BoardReply(version=board.version, error=str(exc))
        if not changes:
            return BoardReply(version=board.version)
        version = board.version
        events: list[PlanningChangedEvent] = []
        for change in changes:
            version += 1
            events.append(
                PlanningChangedEvent(
                    task_before=change.before,
                    task_after=change.after,
                    author=change.after.updated_by,
                    board_version=version,
                )
            )
        tasks = board.tasks.evolve(put={c.after.id: c.after for c in changes})
        next_number = max(board.next_number, *(c.after.number + 1 for c in changes))
        self.publish_state(
            PlanningBoardState(version=version, next_number=next_number, tasks=tasks)
        )
        for event in events:
            self._record(event, cause or Cause())
        return BoardReply(version=version, events=tuple(events))

    def _record(self, event: PlanningChangedEvent, cause: Cause) -> None:
        """Publish one event to the team, in the chain of the message that caused it."""
        orchestrator = self.orchestrator
        if orchestrator is None:
            return
        self.system.route(
            orchestrator,
            EventMessage(
                event=event,
                sender=self.myAddress,
                recipient=orchestrator,
                team_id=self.myAddress.team_id,
                chain_id=cause.chain_id,
                parent_id=cause.parent_id,
            ),
        )


# ---------------------------------------------------------------------- finding a board


BoardHandle: TypeAlias = PublishedHandle[PlanningBoard, PlanningBoardState]
"""A running board: its address (to change it) and its published state (to read it)."""


def open_board(system: Runtime, key: str, orchestrator: ActorAddress | None = None) -> BoardHandle:
    """The running board for `key`, started (reporting to `orchestrator`) if there is none.

    Atomic: whoever asks first starts it, everyone else gets that one.
    """
    config = PlanningBoardConfig(
        name=BOARD_NAME, role=BOARD_ROLE, board_key=key, team_orchestrator=orchestrator
    )
    return open_published(system, PlanningBoard, key, config, PublishedHandle)


def team_board(system: Runtime, orchestrator: ActorAddress) -> BoardHandle:
    """The board of the team `orchestrator` runs (started if it has none yet)."""
    return open_board(system, service_key(orchestrator), orchestrator)
