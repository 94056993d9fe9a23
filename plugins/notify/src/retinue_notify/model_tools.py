"""The notification tools for the model: each answers in text and never ends the turn.

A refusal the model can act on (a delay past the cap, an unknown id, another agent's
notification) is a pydantic-ai `ModelRetry` while the tool has retries left, and the same
sentence as its answer once they are spent. Anything else (the scheduler not answering in
time) is logged and answered in words.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic_ai import RunContext, Tool
from retinue.kit import tool_answer

from retinue_notify.card import NotificationError

if TYPE_CHECKING:
    from retinue_notify.card import NotificationTool


def build_tools(card: NotificationTool) -> list[Tool[Any]]:
    """The three tools of a bound card, acting on its team's scheduler for its agent."""

    def schedule_notification(ctx: RunContext[Any], delay_seconds: float, text: str) -> str:
        """Send yourself a notification after a delay, to check on something later.

        Args:
            delay_seconds: How long from now, in seconds (600 is ten minutes).
            text: What the notification will remind you of.
        """
        return tool_answer(ctx, lambda: card.schedule(delay_seconds, text), NotificationError)

    def list_notifications(ctx: RunContext[Any]) -> str:
        """List the notifications you have scheduled that are still pending."""
        return tool_answer(ctx, card.listing, NotificationError)

    def cancel_notification(ctx: RunContext[Any], notification_id: str) -> str:
        """Cancel one of your pending notifications.

        Args:
            notification_id: Its id, such as N3.
        """
        return tool_answer(ctx, lambda: card.cancel(notification_id), NotificationError)

    return [
        Tool(function, takes_ctx=True)
        for function in (schedule_notification, list_notifications, cancel_notification)
    ]
