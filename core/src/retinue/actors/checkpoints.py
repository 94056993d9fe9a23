"""An actor's state, its checkpoints, and taking them back on resume.

A part of `Actor` (`retinue.actors.actor`): the state is published to the orchestrator as a
checkpoint whenever it changed, and a resumed actor starts from the last one recorded
(`Resumption`), so the two directions of the same record live together here.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Generic, TypeVar, cast

from pydantic import BaseModel

from retinue.actors.config import BaseState
from retinue.actors.errors import log_failure
from retinue.actors.mail_handling import MailHandlingActor
from retinue.actors.messages import StateChangedMessage
from retinue.actors.surface import remote

if TYPE_CHECKING:
    from retinue.actors.resumption import Resumption

logger = logging.getLogger("retinue.actors.actor")

StateT = TypeVar("StateT", bound=BaseState)


class CheckpointingActor(MailHandlingActor, Generic[StateT]):
    """An actor's state: replaced, published when it changed, taken back on resume."""

    # Set by `Actor.__init__`.
    state: StateT
    _published_state: BaseState | None
    _resumption: Resumption | None
    _resumed: bool

    def default_state(self) -> StateT:
        """The state a fresh actor starts with; subclasses return their own state class."""
        return cast(StateT, BaseState())

    def init_state(self, state: StateT) -> None:
        """Replace the whole state (a restore does this; never hold on to the old object)."""
        self.state = state
        self.notify_if_changed()

    @property
    def resumed(self) -> bool:
        """Whether this actor was started from the record of an earlier run of its team."""
        return self._resumed

    def on_resume(self, resumption: Resumption) -> None:
        """Hook: take back what the record kept. Runs after `on_start`, before any message.

        The base actor restores its last checkpointed state; override to rebuild more from
        `resumption.events` (call this too).
        """
        state = resumption.state
        if state is None:
            return
        state_class = type(self.default_state())
        if not isinstance(state, state_class):  # the dumped form a store gives back
            data = state.model_dump() if isinstance(state, BaseModel) else state
            state = state_class.model_validate(data)
        self.init_state(state)

    @remote
    def on_team_resumed(self) -> None:
        """Hook: every actor of a resumed team is back. Runs in this actor's thread as a
        message, before the messages the team was owed are delivered again: start here what
        reaches other members (a timer, a delivery), which `on_resume` is too early for."""

    def notify_if_changed(self) -> None:
        """Publish a state checkpoint when the state differs from the last one published.

        Compared by value against the published snapshot (no serialization per message); the
        snapshot is a deep copy, so a later in-place change is still seen as a change.
        """
        if self.orchestrator is None:  # nobody to publish to (an orchestrator itself)
            return
        state = self.state
        if self._published_state is not None and state == self._published_state:
            return
        snapshot = state.model_copy(deep=True)
        self._published_state = snapshot
        self._tell_orchestrator(StateChangedMessage(state=snapshot))

    def _safe_notify_if_changed(self) -> None:
        try:
            self.notify_if_changed()
        except Exception as exc:  # noqa: BLE001 - publishing may fail in any way: it is logged
            log_failure(logger, f"{self.myAddress.name} could not publish its state", exc)
