"""The `retinue` entry point of retinue-notify: only `@hookimpl` functions."""

from __future__ import annotations

from collections.abc import Sequence

from retinue import hookimpl

from retinue_notify.card import NotificationTool


@hookimpl
def retinue_tool_cards() -> Sequence[type[NotificationTool]]:
    """The notification card. Not a default: an agent gets it by naming it in `tools`."""
    return [NotificationTool]
