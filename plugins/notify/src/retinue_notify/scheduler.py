"""`NotificationScheduler`: one actor per team keeps every pending notification and fires them.

Changes (schedule, cancel, drop) are messages in its mailbox, applied one at a time, so two
agents scheduling at once get distinct ids and nothing is lost. The pending notifications
are the actor's state, a frozen `SchedulerState` the kernel checkpoints after every change,
which is what a resumed team restores (`restore`).

Time comes from a `Clock`: one `Timer` per scheduler, re-armed with the earliest due time
after every change, tells the actor to fire what is due. So a team has one timer thread
however many notifications are pending, and a test moves a `ManualClock` instead of
sleeping. Like the planning board, the scheduler is a team service (`retinue.kit.TeamService`):
it reports to the team's orchestrator (its events, checkpoints and errors are recorded)
without being a member. `open_scheduler` finds or starts it atomically in the runtime's
registry.
A resumed team restarts its scheduler from the record, which keeps the wall clock again
once every member is back and delivers at once what fell due while the team was away.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict
from retinue import ActorAddress, AgentMessage, Runtime, Team, remote
from retinue.kit import Cause, TeamService, TeamServiceConfig, service_key

from retinue_notify.clock import Clock, SystemClock, Timer
from retinue_notify.events import NotificationEvent
from retinue_notify.state import MAX_TEXT, Notification, SchedulerState, clock_time

logger = logging.getLogger(__name__)

SCHEDULER_NAME = "@Notifications"
SCHEDULER_ROLE = "NotificationScheduler"


class SchedulerConfig(TeamServiceConfig):
    """Which team a scheduler serves, and whose orchestrator records it."""

    scheduler_key: str = ""
    """The team id (or `agent-<id>` for an agent outside any team)."""


class SchedulerReply(BaseModel):
    """What a change did; `error` is why it was refused (nothing changed then)."""

    model_config = ConfigDict(frozen=True)

    notification: Notification | None = None
    error: str | None = None


class NotificationScheduler(TeamService[SchedulerConfig, SchedulerState]):
    """Keeps one team's pending notifications and delivers each when it is due."""

    def __init__(self, config: SchedulerConfig, **kwargs: object) -> None:
        super().__init__(config, **kwargs)
        self._clock: Clock = SystemClock()
        self._timer: Timer | None = None
        self._team: Team | None = None

    @property
    def service_key(self) -> str:
        return self.config.scheduler_key

    def service_handle(self) -> SchedulerHandle:
        return SchedulerHandle(self.system, self.myAddress, self._clock)

    def default_state(self) -> SchedulerState:
        return SchedulerState()

    def init_state(self, state: SchedulerState) -> None:
        """A restored state keeps its time: the timer is set for its soonest notification."""
        super().init_state(state)
        self._rearm()

    def on_team_resumed(self) -> None:
        """Every member is back: keep time again, and deliver at once what fell due meanwhile."""
        self.start_clock(self._clock)  # the wall clock: a resumed team keeps real time
        self.fire_due()

    def on_stop(self) -> None:
        if self._timer is not None:
            self._timer.close()
        super().on_stop()

    # ------------------------------------------------------------------ time
    @remote
    def start_clock(self, clock: Clock) -> None:
        """Keep time with `clock` from now on (asked once, when the scheduler is opened)."""
        if self._timer is not None:
            self._timer.close()
        self._clock = clock
        self._timer = clock.timer(self._wake)
        self._rearm()

    def _wake(self) -> None:
        """The timer's callback, in its thread: the actor fires, never the timer."""
        try:
            self.system.tell(self.myAddress, "fire_due")
        except Exception:  # the scheduler stopped meanwhile: nothing left to fire
            logger.debug("notification scheduler gone before its timer fired", exc_info=True)

    def _rearm(self) -> None:
        if self._timer is not None:
            pending = self.state.pending
            self._timer.arm(min(n.due_at for n in pending) if pending else None)

    # ------------------------------------------------------------------ changes
    @remote
    def schedule(
        self,
        owner: ActorAddress,
        delay_seconds: float,
        text: str,
        *,
        max_pending: int,
        cause: Cause | None = None,
    ) -> SchedulerReply:
        """Schedule `text` for `owner` in `delay_seconds` (checked by the card first)."""
        state = self.state
        if len(state.of(owner.name)) >= max_pending:
            return SchedulerReply(
                error=f"you already have {max_pending} pending notifications, the most allowed; "
                "cancel one first"
            )
        now = self._clock.now()
        made = Notification(
            id=f"N{state.next_number}",
            owner=owner,
            text=text[:MAX_TEXT],
            created_at=now,
            due_at=now + delay_seconds,
            chain_id=cause.chain_id if cause is not None else None,
            parent_id=cause.parent_id if cause is not None else None,
        )
        self._set(SchedulerState(next_number=state.next_number + 1, pending=(*state.pending, made)))
        self.notify_event(NotificationEvent(kind="scheduled", notification=made))
        return SchedulerReply(notification=made)

    @remote
    def cancel(self, owner: str, notification_id: str) -> SchedulerReply:
        """Cancel one of `owner`'s pending notifications; another agent's is refused."""
        wanted = notification_id.strip().upper()
        if wanted and wanted[0].isdigit():
            wanted = f"N{wanted}"
        found = next((n for n in self.state.pending if n.id == wanted), None)
        if found is None:
            return SchedulerReply(
                error=f"there is no pending notification {notification_id.strip()[:40]!r}; "
                f"{_yours(self.state.of(owner))}"
            )
        if found.owner.name != owner:
            return SchedulerReply(
                error=f"{found.id} is not yours to cancel: only the agent that scheduled a "
                "notification can cancel it"
            )
        self._remove([found])
        self.notify_event(NotificationEvent(kind="cancelled", notification=found))
        return SchedulerReply(notification=found)

    @remote
    def drop_owner(self, owner: str, reason: str) -> int:
        """Drop every pending notification of `owner`, reporting each; how many were dropped."""
        dropped = self.state.of(owner)
        if dropped:
            self._remove(dropped)
            for notification in dropped:
                self._report_drop(notification, reason)
        return len(dropped)

    @remote
    def fire_due(self) -> int:
        """Deliver every notification whose time has come; how many were delivered."""
        now = self._clock.now()
        due = sorted((n for n in self.state.pending if n.due_at <= now), key=lambda n: n.due_at)
        if not due:
            self._rearm()
            return 0
        self._remove(due)
        delivered = 0
        for notification in due:
            recipient = self._owner_now(notification.owner)
            if recipient is None:
                self._report_drop(notification, "its owner is no longer in the team")
                continue
            self.send(
                recipient,
                AgentMessage(
                    type="notification",
                    content=(
                        f"Notification {notification.id}, which you scheduled at "
                        f"{clock_time(notification.created_at)}:\n{notification.text}"
                    ),
                    chain_id=notification.chain_id,
                    parent_id=notification.parent_id,
                ),
            )
            self.notify_event(NotificationEvent(kind="delivered", notification=notification))
            delivered += 1
        return delivered

    # ------------------------------------------------------------------ reads and resume
    @remote
    def pending_of(self, owner: str) -> tuple[Notification, ...]:
        """`owner`'s pending notifications, soonest first."""
        return self.state.of(owner)

    # ------------------------------------------------------------------ helpers
    def _set(self, state: SchedulerState) -> None:
        self.state = state
        self._rearm()

    def _remove(self, gone: tuple[Notification, ...] | list[Notification]) -> None:
        ids = {n.id for n in gone}
        state = self.state
        self._set(
            state.model_copy(update={"pending": tuple(n for n in state.pending if n.id not in ids)})
        )

    def _report_drop(self, notification: Notification, reason: str) -> None:
        logger.warning(
            "notification %s of %s dropped: %s", notification.id, notification.owner.name, reason
        )
        self.notify_event(
            NotificationEvent(kind="dropped", notification=notification, reason=reason)
        )

    def _owner_now(self, owner: ActorAddress) -> ActorAddress | None:
        """Where the owner is now: the team member of its name (a resumed one too), or None."""
        orchestrator = self.orchestrator
        if orchestrator is None:
            return owner
        if self._team is None:
            self._team = self.system.team_view(orchestrator, self.myAddress)
        return self._team.directory.member(owner.name)


def _yours(pending: tuple[Notification, ...]) -> str:
    if not pending:
        return "you have no pending notifications"
    return "yours are " + ", ".join(n.id for n in pending)


# ---------------------------------------------------------------------- finding a scheduler


@dataclass(frozen=True, slots=True)
class SchedulerHandle:
    """A running scheduler: its address (to change it) and its clock (to tell the time)."""

    system: Runtime
    address: ActorAddress
    clock: Clock

    def proxy(self, timeout: float | None = None) -> NotificationScheduler:
        """The scheduler's typed methods, each waiting (up to `timeout`) for its answer."""
        return self.system.proxy_ask(self.address, NotificationScheduler, timeout=timeout)


def open_scheduler(
    system: Runtime,
    key: str,
    orchestrator: ActorAddress | None = None,
    clock: Clock | None = None,
) -> SchedulerHandle:
    """The running scheduler for `key`, started (on `clock`, the wall clock by default) if none.

    Atomic: whoever asks first starts it, everyone else gets that one. A `clock` given for a
    scheduler that is already running is refused: its notifications keep the time they had.
    """

    def start() -> SchedulerHandle:
        config = SchedulerConfig(
            name=SCHEDULER_NAME,
            role=SCHEDULER_ROLE,
            scheduler_key=key,
            team_orchestrator=orchestrator,
        )
        started = system.createActor(NotificationScheduler, config)
        chosen = clock if clock is not None else SystemClock()
        system.ask(started, "start_clock", chosen)
        return SchedulerHandle(system, started, chosen)

    handle = system.services.open(NotificationScheduler, key, start)
    if clock is not None and clock is not handle.clock:
        raise RuntimeError(
            f"the notification scheduler of {key} is already running on another clock"
        )
    return handle


def team_scheduler(
    system: Runtime, orchestrator: ActorAddress, clock: Clock | None = None
) -> SchedulerHandle:
    """The scheduler of the team `orchestrator` runs (started, on `clock`, if it has none)."""
    return open_scheduler(system, service_key(orchestrator), orchestrator, clock)


def running_scheduler(system: Runtime, key: str) -> SchedulerHandle | None:
    """The scheduler for `key` if one is running; never starts one."""
    found = system.services.running(NotificationScheduler, key)
    return found if isinstance(found, SchedulerHandle) else None
