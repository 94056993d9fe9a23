"""An actor's hand in its own mailbox: what waits there, and letters taken out of turn.

A part of `Actor` (`retinue.actors.actor`). A letter handled without a turn of its own is
still owed what a turn gives it: an answer to an asker, a `HandledMessage` in the record,
and its unit of work counted done, so `wait_idle` and a resume see it settled.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from retinue.actors.dead_letters import drop_letters
from retinue.actors.mailbox import Letter
from retinue.actors.messages import HandledMessage, Message
from retinue.actors.sending import SendingActor


class MailHandlingActor(SendingActor):
    """Reading the mailbox in place, and taking letters from it outside their own turn."""

    def peek_mailbox(self) -> Sequence[Message]:
        """The messages waiting in the mailbox, oldest first, left in place."""
        return [m for m in self.mailbox.peek() if isinstance(m, Message)]

    def has_mail(self) -> bool:
        """Whether anything waits in the mailbox: cheap, whatever its length."""
        return self.mailbox.qsize() > 0

    def consume_mailbox(self, predicate: Callable[[Message], bool]) -> list[Message]:
        """Remove the pending messages matching `predicate`; each gets a `HandledMessage`."""
        letters = self.mailbox.take(lambda m: isinstance(m, Message) and predicate(m))
        self._settle(letters)
        return [letter.message for letter in letters]

    def take_into_turn(self, predicate: Callable[[Message], bool], limit: int) -> list[Message]:
        """Take the messages waiting at the head of the mailbox that match `predicate` (at
        most `limit`, stopping at the first that does not) into the turn in flight.

        They are handled by that turn: each is reported handled with its message, after
        everything the turn did, so a turn cut short by a shutdown leaves all of them to
        be delivered again on resume, as it leaves its own.
        """
        letters = self.mailbox.take_leading(
            lambda m: isinstance(m, Message) and predicate(m), limit
        )
        self._joined.extend(letters)
        return [letter.message for letter in letters]

    def consume_flagged(self) -> list[Letter]:
        """Remove the letters the mailbox's watcher flagged (cancels), each handled like above."""
        letters = self.mailbox.take_flagged()
        self._settle(letters)
        return letters

    def _settle(self, letters: Sequence[Letter]) -> None:
        """Letters taken out of turn: answer an asker, report each handled, count it done."""
        for letter in letters:
            if isinstance(letter.message, Message):
                self._tell_orchestrator(HandledMessage(message_id=letter.message.id))
        self._release(letters)

    def _release(self, letters: Sequence[Letter]) -> None:
        """Letters handled without a turn of their own: answer an asker, count them done."""
        for letter in letters:
            if letter.reply_to is not None:  # an asked message must be answered
                letter.reply_to.set(None)
        if letters:
            self._system.tracker.done(len(letters))

    def _drop_mail(self) -> None:
        """Turn whatever is still queued into dead letters and release its waiters."""
        drop_letters(self._system, self.myAddress, self.mailbox.drain())
