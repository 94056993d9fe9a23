"""`MailboxTool`: the two mailbox surfaces, each on its own channel.

* TOOL_CALL — `read_mailbox()`: the model reads the mail waiting for it in the middle of a
  run and *absorbs* it: every message it is shown leaves the mailbox (the kernel's
  `consume_mailbox` reports each one as handled), so it does not come back as a turn of its
  own. The tool's answer in the history is the record of that mail.
* COMMAND — `stop()`: the `/stop` frontends offer. A `/stop` that arrives while a run is in
  flight is taken by the kernel's cancellation hook before it is ever dispatched, and an
  idle agent's `/stop` first stops the work it handed on (the kernel's cascading stop), so
  reaching this command means there was nothing to stop, and it says so (in the kernel's
  words, `retinue.kit.NO_RUN_IN_PROGRESS`).

The card tells the kernel, through `how_to_read_mail`, that its agent's model can read its
mail; the kernel's arrival notice then points the model at `read_mailbox`.

What the read leaves in place:

* every cancel (`is_cancel`): cancelling is the kernel's, and a cancel the model could read
  away would never cancel;
* slash commands from an operator: they are meant for the agent's command registry, not
  for the model, and get their own turn;
* anything that is not an `AgentMessage` (runtime traffic has no text for the model).

The card serves no LLM_CONTEXT: the kernel's mid-run arrival notice already tells the model
that mail came in; a second carrier would only narrate the same arrivals twice.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, ClassVar

from retinue import ToolCard

if TYPE_CHECKING:
    from retinue import AgentMessage

EMPTY_MAILBOX = "Your mailbox is empty."
"""What `read_mailbox` answers when nothing is waiting."""


def is_readable(message: object) -> bool:
    """Whether `read_mailbox` may take this pending message."""
    # The agent layer loads pydantic-ai; importing it here, not at the top, keeps plugin
    # discovery (`retinue plugins`) from paying for it.
    from retinue import AgentMessage, from_operator, is_cancel

    if not isinstance(message, AgentMessage) or is_cancel(message):
        return False
    return not (from_operator(message) and message.content.lstrip().startswith("/"))


def render_mail(messages: Sequence[AgentMessage]) -> str:
    """The text the model reads: each message as a turn would show it, oldest first.

    Each one goes through the kernel's `render_incoming`: its reply-protocol line, then its
    content fenced with the sender and intent the kernel knows, so a message that imitates
    another sender's header cannot pass for it here either.
    """
    from retinue import render_incoming

    if not messages:
        return EMPTY_MAILBOX
    plural = "message" if len(messages) == 1 else "messages"
    heading = f"{len(messages)} {plural} taken from your mailbox; none will arrive again:"
    return "\n\n".join([heading, *(render_incoming(message) for message in messages)])


class MailboxTool(ToolCard):
    """Read and absorb pending mail mid-run (`read_mailbox`); `/stop` for frontends."""

    name: ClassVar[str] = "mailbox"
    default: ClassVar[bool] = True
    how_to_read_mail: ClassVar[str | None] = "Call read_mailbox to read them now"

    def get_tools(self) -> Sequence[Callable[..., Any]]:
        return [self.read_mailbox]

    def get_commands(self) -> Sequence[Callable[..., Any]]:
        return [self.stop]

    def tool_offered(self, name: str) -> bool:
        """`read_mailbox` only while mail waits: otherwise it would be paid for for nothing.

        An agent answers `has_mail()` whatever its mailbox's length; a host without it
        (not an `Actor`) is asked for its pending messages instead.
        """
        has_mail = getattr(self.host, "has_mail", None)
        return bool(has_mail() if callable(has_mail) else self.host.peek_mailbox())

    def read_mailbox(self) -> str:
        """Take the messages that arrived while you work; none will arrive again."""
        from retinue import AgentMessage

        taken = self.host.consume_mailbox(is_readable)
        return render_mail([m for m in taken if isinstance(m, AgentMessage)])

    def stop(self) -> str:
        """Stop the run in progress and the work it handed on (the kernel does the stopping)."""
        from retinue.kit import NO_RUN_IN_PROGRESS

        return NO_RUN_IN_PROGRESS
