"""The calls that wait for the person: folded from the record, answered from the page.

A member's run parked on tool calls (a `ToolApprovalAskedEvent`) shows each call as a card
until its `ToolApprovalAnsweredEvent` (approved, denied, answered, dropped) or the member
leaving the team. The cards come from the record only, so a reload, a second browser and a
resumed team show the same ones. An answer is the person's own command to that member
(`/approve ID [note]`, `/deny ID REASON`, `/answer ID TEXT`), sent as the page says any
text: the kernel's strict answers apply, and its reply (done, or refused and why) is read
back from the record for the page.

A call's arguments and a question are the model's output: they reach the page cut to a
bound, as text (the page puts them in with `textContent`, never as markup).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from retinue import PendingCall, ToolApprovalAnsweredEvent, ToolApprovalAskedEvent

from retinue_web.actions import ActionError

if TYPE_CHECKING:
    from retinue.record import Record

    from retinue_web.delta import Delta

#: The record kinds the cards are folded from.
KINDS = frozenset({"ToolApprovalAskedEvent", "ToolApprovalAnsweredEvent"})
#: The most characters of a call's arguments, or of a question, a card shows.
ARGS_CHARS = 2_000
#: The most choices of a question a card offers, and the most characters of each shown.
MAX_CHOICES = 20
CHOICE_CHARS = 200
#: The answers the page may give, as the member's commands.
VERBS = ("approve", "deny", "answer")


def bounded(text: str, limit: int) -> str:
    """`text`, cut to `limit` characters with how many more there were."""
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text) - limit} more characters)"


def card_key(agent: str, call_id: str) -> str:
    """A card's key in the page: a call id is counted per member."""
    return f"{agent}/{call_id}"


def card_json(agent: str, call: PendingCall, position: int) -> dict[str, Any]:
    """What the page shows of one waiting call (see the module docstring for the bounds)."""
    card: dict[str, Any] = {
        "key": card_key(agent, call.id),
        "agent": agent,
        "id": call.id,
        "kind": call.kind,
        "tool": bounded(call.tool, CHOICE_CHARS),
        "rule": call.rule,
        "asked_by": call.asked_by,
        "reviewer": call.reviewer,
        "timeout": call.timeout,
        "on_timeout": call.on_timeout,
        "chain": call.chain_id,
        "pos": position,
    }
    args = call.args
    if call.kind == "question" and isinstance(args, dict):
        card["question"] = bounded(str(args.get("question") or ""), ARGS_CHARS)
        choices = args.get("choices")
        listed = [str(c) for c in choices] if isinstance(choices, list) else []
        card["choices"] = [bounded(c, CHOICE_CHARS) for c in listed[:MAX_CHOICES]]
        card["more_choices"] = max(0, len(listed) - MAX_CHOICES)
    else:
        text = args if isinstance(args, str) else json.dumps(args, ensure_ascii=False)
        card["args"] = bounded(text, ARGS_CHARS)
    return card


class PendingCards:
    """The calls waiting now, by key, in the order they were asked."""

    def __init__(self) -> None:
        self.cards: dict[str, dict[str, Any]] = {}

    def fold(self, event: object, record: Record, delta: Delta) -> bool:
        """Fold an approval event into the cards and `delta`; False for any other event."""
        if isinstance(event, ToolApprovalAskedEvent):
            agent = event.agent.name
            for call in event.calls:
                card = card_json(agent, call, record.position)
                self.cards[card["key"]] = card
                delta.approvals["asked"].append(card)
        elif isinstance(event, ToolApprovalAnsweredEvent):
            self._close(card_key(event.agent.name, event.call_id), delta)
        else:
            return False
        return True

    def left(self, agent: str, delta: Delta) -> None:
        """A member left the team: its parked run went with it."""
        for key in [key for key, card in self.cards.items() if card["agent"] == agent]:
            self._close(key, delta)

    def _close(self, key: str, delta: Delta) -> None:
        if self.cards.pop(key, None) is not None:
            delta.approvals["closed"].append(key)

    def json(self) -> list[dict[str, Any]]:
        return list(self.cards.values())


def command(verb: str, call_id: str, text: str) -> str:
    """The person's command that gives this answer, or `ActionError` saying what is wrong."""
    if verb not in VERBS:
        raise ActionError(f"no answer called {verb!r}: approve, deny or answer")
    call_id = call_id.strip()
    if not call_id.isascii() or not call_id.isdigit():
        raise ActionError(f"call must be the id of a waiting call (a number), not {call_id!r}")
    text = text.strip()
    if verb == "deny" and not text:
        raise ActionError(f"say why you deny call {call_id}: the model reads your reason")
    if verb == "answer" and not text:
        raise ActionError(f"type your answer to call {call_id}")
    return f"/{verb} {call_id} {text}".rstrip()


def refused(verb: str, reply: str) -> bool:
    """Whether the kernel's `reply` to `/verb` refuses it (its refusals start with the
    command; what it did starts with what it did: `Approved ...`)."""
    return reply.startswith(f"/{verb}")
