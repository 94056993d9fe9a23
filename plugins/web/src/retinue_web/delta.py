"""`Delta`: what folding one record changed, collected for the page as it is folded.

`TeamFold.add` fills one per record and renders it as the JSON delta the page applies; the
flow line a record makes (a message or an event) takes its shape here, so every flow line
the page shows has the same fields.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from retinue import Message
    from retinue.record import Record

    from retinue_web.roster import Member

#: The most characters of one text a flow line carries (the rest is said to be cut).
TEXT_LIMIT = 20_000


def cut(text: str) -> str:
    """`text`, cut to `TEXT_LIMIT` characters with how many more there were."""
    if len(text) <= TEXT_LIMIT:
        return text
    return text[:TEXT_LIMIT] + f"… ({len(text) - TEXT_LIMIT} more characters)"


def name_of(address: Any) -> str | None:
    """An address's name, or None for no address (a message from code, not an actor)."""
    name = getattr(address, "name", None)
    return name if isinstance(name, str) else None


class Delta:
    """What one record changed, collected while it is folded."""

    def __init__(self, position: int) -> None:
        self.position = position
        self.flow: dict[str, Any] | None = None
        self.members: dict[str, Member] = {}
        self.commands: dict[str, list[dict[str, Any]]] = {}
        self.panels: list[str] = []
        #: Cards of calls waiting for the person: asked now, and closed (by key).
        self.approvals: dict[str, list[Any]] = {"asked": [], "closed": []}
        self.budget = False
        self.chains = False
        self.team = False

    def member(self, member: Member) -> None:
        self.members[member.name] = member

    def message(self, record: Record, sent: Message, intent: str, text: str) -> dict[str, Any]:
        self.flow = {
            "pos": record.position,
            "kind": "message",
            "id": sent.id,
            "type": type(sent).__name__,
            "from": name_of(sent.sender),
            "to": name_of(sent.recipient),
            "intent": intent,
            "text": text,
            "chain": sent.chain_id,
            "parent": sent.parent_id,
            "time": record.timestamp,
        }
        return self.flow

    def event(
        self,
        record: Record,
        event: str,
        who: str,
        text: str,
        *,
        chain: str | None = None,
        parent: str | None = None,
    ) -> None:
        self.flow = {
            "pos": record.position,
            "kind": "event",
            "event": event,
            "from": who,
            "text": text,
            "chain": chain or record.chain_id,
            "parent": parent or record.parent_id,
            "time": record.timestamp,
        }
