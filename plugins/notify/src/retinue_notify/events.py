"""`NotificationEvent`: what became of a notification, for the team's record and observers."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

from retinue_notify.state import Notification

NotificationKind = Literal["scheduled", "delivered", "cancelled", "dropped"]


class NotificationEvent(BaseModel):
    """A notification scheduled, delivered, cancelled by its owner or dropped (and why)."""

    model_config = ConfigDict(frozen=True)

    kind: NotificationKind
    notification: Notification
    reason: str = ""
    """For `dropped`: why (its owner stopped, or left the team)."""
