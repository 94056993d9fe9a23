"""Dead letters: a message whose recipient has stopped is recorded, and its sender answered.

Kept apart from delivery itself: delivery is the hot path and stays one mailbox put, while
this runs only when a put fails, and asks the sender what it is owed.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from retinue.actors import runtime
from retinue.actors.messages import DeadLetterEvent, EventMessage, Message

if TYPE_CHECKING:
    from retinue.actors.actor import Actor
    from retinue.actors.address import ActorAddress
    from retinue.actors.mailbox import Letter
    from retinue.actors.system import ActorSystem

logger = logging.getLogger(__name__)


def report_dead_letter(
    system: ActorSystem,
    sender: ActorAddress | None,
    recipient: ActorAddress,
    message: Message,
) -> None:
    """Record an undeliverable message with the sender's orchestrator, then answer the sender.

    The sender's `undeliverable_notice` says what it should receive (an agent whose request
    went nowhere gets a failure notice); during shutdown nobody is told.
    """
    shutting_down = system.shutting_down
    logger.log(
        logging.DEBUG if shutting_down else logging.WARNING,
        "dead letter: %s from %s to stopped %s",
        type(message).__name__,
        sender.name if sender else "outside",
        recipient.name,
    )
    if shutting_down:
        return
    source = runtime.lookup(sender.agent_id) if sender is not None else None
    orchestrator = source.orchestrator if source is not None else None
    if orchestrator is not None and orchestrator != recipient:
        event = DeadLetterEvent(
            sender=sender.name if sender else None,
            recipient=recipient.name,
            message_type=type(message).__name__,
            message_id=message.id,
        )
        system.post(
            orchestrator,
            EventMessage(
                event=event,
                sender=sender,
                recipient=orchestrator,
                team_id=recipient.team_id,
                chain_id=message.chain_id,
                parent_id=message.id,
            ),
        )
    if source is not None:  # the record first, then the news
        _answer_sender(system, source, message, recipient)


def drop_letters(system: ActorSystem, owner: ActorAddress, letters: Sequence[Letter]) -> None:
    """What a stopped actor's mailbox still held: askers answered, messages dead letters."""
    for letter in letters:
        letter.refuse(f"{owner.name} stopped")
        if isinstance(letter.message, Message):
            system.dead_letter(letter.message.sender, owner, letter.message)
    if letters:
        system.tracker.done(len(letters))


def _answer_sender(
    system: ActorSystem, source: Actor[Any, Any], message: Message, recipient: ActorAddress
) -> None:
    try:
        notice = source.undeliverable_notice(message, recipient)
    except Exception:
        logger.warning("%s could not build a dead-letter notice", source.myAddress.name)
        logger.debug("traceback of the failure above", exc_info=True)
        return
    if notice is not None:
        system.route(source.orchestrator, notice)
