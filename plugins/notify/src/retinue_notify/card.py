"""`NotificationTool`: an agent schedules a message to itself, to come back to something later.

* TOOL_CALL — `schedule_notification(delay_seconds, text)`, `list_notifications()` and
  `cancel_notification(notification_id)`; a mistake (a delay past the cap, an unknown id,
  another agent's notification) is a retry with the reason while the tool has retries left;
* SYSTEM_PROMPT — one stable paragraph: what the tools do and the longest delay;
* COMMAND — `/notifications` and `/cancel_notification N3` for people, acting for the agent.

The notifications themselves are kept by the team's one `NotificationScheduler` (see
`retinue_notify.scheduler`), which delivers each as a `notification` message to the agent
that scheduled it. When that agent stops (fired, or failed to run), its pending
notifications are dropped, each reported as a `NotificationEvent`; when the whole team
shuts down they are kept in the scheduler's checkpointed state, for a resume.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import Field, PrivateAttr
from retinue import ToolCard
from retinue.kit import ServiceSlot, cause_of, service_key

from retinue_notify.scheduler import (
    SchedulerHandle,
    SchedulerReply,
    open_scheduler,
    running_scheduler,
)
from retinue_notify.state import MAX_TEXT, Notification, duration

if TYPE_CHECKING:
    from pydantic_ai import Tool

logger = logging.getLogger(__name__)

MAX_DELAY_LIMIT = 30 * 24 * 3600.0
"""The cap on `max_delay_seconds` itself: 30 days."""


class NotificationError(ValueError):
    """A notification that cannot be scheduled or cancelled; the message says why."""


class NotificationTool(ToolCard):
    """Notifications an agent sends itself after a delay: schedule, list, cancel."""

    name: ClassVar[str] = "notify"

    max_delay_seconds: float = Field(default=24 * 3600.0, gt=0, le=MAX_DELAY_LIMIT)
    """The longest delay an agent may ask for."""
    max_pending: int = Field(default=20, ge=1, le=1_000)
    """The most notifications one agent may have pending at once."""
    scheduler_timeout: float = Field(default=30.0, gt=0)
    """Seconds a change waits for the scheduler to answer."""

    _scheduler: ServiceSlot[SchedulerHandle] = PrivateAttr(
        default_factory=lambda: ServiceSlot(open_scheduler)
    )

    # -- binding ---------------------------------------------------------------------------

    @property
    def scheduler(self) -> SchedulerHandle:
        """The bound agent's scheduler (its team's), started on first use if need be."""
        return self._scheduler.open(self.host)

    def on_unbind(self) -> None:
        """The agent stops: its pending notifications go, unless the whole team shuts down."""
        self._scheduler.clear()
        host = self.host
        if host.system.shutting_down:
            return  # kept in the scheduler's state, for a resume
        found = running_scheduler(host.system, service_key(host.myAddress))
        if found is None:
            return
        try:
            found.system.tell(found.address, "drop_owner", host.myAddress.name, "its owner stopped")
        except Exception:
            logger.warning(
                "%s stopped; its notifications could not be dropped",
                host.myAddress.name,
                exc_info=True,
            )

    # -- channels --------------------------------------------------------------------------

    def get_system_prompts(self) -> Sequence[str]:
        return [
            "You can send yourself a notification for later, to check on something you are "
            "waiting for: schedule_notification(delay_seconds, text) delivers the text back to "
            f"you as a notification after the delay (at most {duration(self.max_delay_seconds)}). "
            "list_notifications shows your pending ones and cancel_notification cancels one."
        ]

    def get_tools(self) -> Sequence[Tool[Any]]:
        from retinue_notify.model_tools import build_tools

        return build_tools(self)

    def get_commands(self) -> Sequence[Callable[..., Any]]:
        return [self.notifications, self.cancel_notification]

    # -- commands --------------------------------------------------------------------------

    def notifications(self) -> str:
        """Show this agent's pending notifications, soonest first."""
        return self.listing()

    def cancel_notification(self, notification_id: str) -> str:
        """Cancel one of this agent's pending notifications: /cancel_notification N3."""
        return self.cancel(notification_id)

    # -- the operations behind tools and commands ------------------------------------------

    def schedule(self, delay_seconds: float, text: str) -> str:
        """Schedule `text` for this agent in `delay_seconds`; `NotificationError` with why."""
        if not delay_seconds > 0:
            raise NotificationError(f"the delay must be more than 0 seconds, not {delay_seconds}")
        if delay_seconds > self.max_delay_seconds:
            raise NotificationError(
                f"a delay of {delay_seconds:g} seconds is past the longest allowed, "
                f"{self.max_delay_seconds:g} seconds ({duration(self.max_delay_seconds)})"
            )
        words = text.strip()
        if not words:
            raise NotificationError("a notification needs a text: what to check on")
        if len(words) > MAX_TEXT:
            raise NotificationError(
                f"the text has {len(words)} characters; a notification holds at most {MAX_TEXT}"
            )
        handle = self.scheduler
        reply = handle.proxy(self.scheduler_timeout).schedule(
            self.host.myAddress,
            delay_seconds,
            words,
            max_pending=self.max_pending,
            cause=cause_of(self.host),
        )
        made = _checked(reply)
        return f"Scheduled {made.describe(handle.clock.now())}"

    def listing(self) -> str:
        """This agent's pending notifications as text."""
        handle = self.scheduler
        pending = handle.proxy(self.scheduler_timeout).pending_of(self.host.myAddress.name)
        if not pending:
            return "You have no pending notifications."
        now = handle.clock.now()
        return "Pending notifications, soonest first:\n" + "\n".join(
            f"- {n.describe(now)}" for n in pending
        )

    def cancel(self, notification_id: str) -> str:
        """Cancel one of this agent's notifications; `NotificationError` with why not."""
        reply = self.scheduler.proxy(self.scheduler_timeout).cancel(
            self.host.myAddress.name, notification_id
        )
        made = _checked(reply)
        return f"Cancelled {made.id}: {made.text}"


def _checked(reply: SchedulerReply) -> Notification:
    if reply.error is not None or reply.notification is None:
        raise NotificationError(reply.error or "the scheduler gave no answer")
    return reply.notification
