"""retinue-notify: an agent schedules messages to itself for later; one scheduler per team."""

from retinue_notify.card import NotificationError, NotificationTool
from retinue_notify.clock import Clock, ManualClock, SystemClock, Timer
from retinue_notify.events import NotificationEvent
from retinue_notify.scheduler import (
    NotificationScheduler,
    SchedulerHandle,
    SchedulerReply,
    open_scheduler,
    team_scheduler,
)
from retinue_notify.state import Notification, SchedulerState

__all__ = [
    "Clock",
    "ManualClock",
    "Notification",
    "NotificationError",
    "NotificationEvent",
    "NotificationScheduler",
    "NotificationTool",
    "SchedulerHandle",
    "SchedulerReply",
    "SchedulerState",
    "SystemClock",
    "Timer",
    "open_scheduler",
    "team_scheduler",
]
