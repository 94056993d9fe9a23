"""The kernel's events that change nothing `TeamFold` keeps: each only says something.

A routing skip, a dropped or resumed task, a dead letter become a line of the flow; a
member's announced commands go to the page as they are. None of them touches the roster,
the budget or the turns, so they are written straight into the record's `Delta`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from retinue import (
    ChainMessageDroppedEvent,
    ChainResumedEvent,
    CommandsAnnouncedEvent,
    DeadLetterEvent,
    RoutingSkippedEvent,
)

from retinue_web.delta import cut

if TYPE_CHECKING:
    from retinue.record import Record

    from retinue_web.delta import Delta


def said(event: object, record: Record, delta: Delta) -> bool:
    """Put what `event` says into `delta`; False when it is not one of these events."""
    if isinstance(event, CommandsAnnouncedEvent):
        delta.commands[event.agent.name] = [c.model_dump() for c in event.commands]
    elif isinstance(event, RoutingSkippedEvent):
        text = f"→ {event.recipient} not delivered: {event.reason}"
        delta.event(record, "skipped", event.agent.name, cut(text))
    elif isinstance(event, ChainMessageDroppedEvent):
        text = f"dropped a message from {event.sender or '?'}: {event.reason}"
        delta.event(record, "dropped", event.agent.name, text)
    elif isinstance(event, ChainResumedEvent):
        text = f"let the stopped task go on ({event.delivered} held delivered)"
        delta.event(record, "resumed", event.agent.name, text)
    elif isinstance(event, DeadLetterEvent):
        text = f"{event.message_type} to {event.recipient}, who had stopped, was not delivered"
        delta.event(record, "dead_letter", event.sender or "?", text)
    else:
        return False
    return True
