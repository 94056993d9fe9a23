"""retinue-mailbox: read and absorb pending mail mid-run, and /stop for frontends."""

from retinue_mailbox.card import EMPTY_MAILBOX, MailboxTool, is_readable, render_mail

__all__ = ["EMPTY_MAILBOX", "MailboxTool", "is_readable", "render_mail"]
