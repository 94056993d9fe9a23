"""The `retinue` entry point of retinue-mailbox: only `@hookimpl` functions."""

from __future__ import annotations

from collections.abc import Sequence

from retinue import hookimpl

from retinue_mailbox.card import MailboxTool


@hookimpl
def retinue_tool_cards() -> Sequence[type[MailboxTool]]:
    """The mailbox card; it is a default, so every agent can read its mail and hear /stop."""
    return [MailboxTool]
