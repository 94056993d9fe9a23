"""`Notification` and `SchedulerState`: what is pending, as plain data a checkpoint keeps."""

from __future__ import annotations

from datetime import UTC, datetime

from pydantic import BaseModel, ConfigDict, Field
from retinue import ActorAddress, BaseState

MAX_TEXT = 2_000
"""Characters of one notification's text."""


class Notification(BaseModel):
    """One message an agent asked to get back later."""

    model_config = ConfigDict(frozen=True)

    id: str
    """`N1`, `N2`, ... per team, in scheduling order; never reused."""
    owner: ActorAddress
    """The agent that scheduled it: the only one it goes to, and the only one who may cancel it."""
    text: str = Field(max_length=MAX_TEXT)
    created_at: float
    """Wall-clock seconds when it was scheduled."""
    due_at: float
    """Wall-clock seconds when it is delivered."""
    chain_id: str | None = None
    """The chain of the message the agent was handling when it scheduled it."""
    parent_id: str | None = None
    """That message's id: the delivered notification is its child."""

    def describe(self, now: float) -> str:
        """`N3 at 14:05:00 UTC (in 9m 30s): check the build`."""
        return f"{self.id} at {clock_time(self.due_at)} ({span(self.due_at - now)}): {self.text}"


class SchedulerState(BaseState):
    """Every pending notification of a team, by id in scheduling order."""

    model_config = ConfigDict(frozen=True)

    next_number: int = Field(default=1, ge=1)
    pending: tuple[Notification, ...] = ()

    def of(self, owner: str) -> tuple[Notification, ...]:
        """The pending notifications of the agent called `owner`, soonest first."""
        return tuple(
            sorted((n for n in self.pending if n.owner.name == owner), key=lambda n: n.due_at)
        )


def clock_time(seconds: float) -> str:
    """A wall-clock time for people and models: `2026-12-01 14:05:00 UTC`."""
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


def span(seconds: float) -> str:
    """`in 9m 30s`, or `due now`."""
    return "due now" if round(seconds) <= 0 else f"in {duration(seconds)}"


def duration(seconds: float) -> str:
    """`1h 5m 30s`: a length of time for people and models."""
    hours, rest = divmod(max(0, round(seconds)), 3600)
    minutes, secs = divmod(rest, 60)
    parts = [(hours, "h"), (minutes, "m"), (secs, "s")]
    return " ".join(f"{amount}{unit}" for amount, unit in parts if amount) or "0s"
