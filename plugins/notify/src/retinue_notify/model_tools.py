"""The notification tools for the model: each answers in text and never ends the turn.

A refusal the model can act on (a delay past the cap, an unknown id, another agent's
notification) is a pydantic-ai `ModelRetry` while the tool has retries left, and the same
sentence as its answer once they are spent. Anything else (the scheduler not answering in
time) is logged and answered in words.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from pydantic_ai import ModelRetry, RunContext, Tool

from retinue_notify.card import NotificationError

if TYPE_CHECKING:
    from retinue_notify.card import NotificationTool

logger = logging.getLogger(__name__)


def build_tools(card: NotificationTool) -> list[Tool[Any]]:
    """The three tools of a bound card, acting on its team's scheduler for its agent."""

    def schedule_notification(ctx: RunContext[Any], delay_seconds: float, text: str) -> str:
        """Send yourself a notification after a delay, to check on something later.

        Args:
            delay_seconds: How long from now, in seconds (600 is ten minutes).
            text: What the notification will remind you of.
        """
        return _answer(ctx, "schedule_notification", lambda: card.schedule(delay_seconds, text))

    def list_notifications(ctx: RunContext[Any]) -> str:
        """List the notifications you have scheduled that are still pending."""
        return _answer(ctx, "list_notifications", card.listing)

    def cancel_notification(ctx: RunContext[Any], notification_id: str) -> str:
        """Cancel one of your pending notifications.

        Args:
            notification_id: Its id, such as N3.
        """
        return _answer(ctx, "cancel_notification", lambda: card.cancel(notification_id))

    return [
        Tool(function, takes_ctx=True)
        for function in (schedule_notification, list_notifications, cancel_notification)
    ]


def _answer(ctx: RunContext[Any], tool: str, action: Callable[[], str]) -> str:
    try:
        return action()
    except NotificationError as exc:
        if ctx.retry < ctx.max_retries:
            raise ModelRetry(str(exc)) from None
        return f"Error: {exc}"
    except Exception as exc:
        logger.warning("%s failed", tool, exc_info=True)
        return f"Error: {tool} failed ({type(exc).__name__}: {exc})"
