"""The person's answers over AG-UI: waiting calls as interrupts, a resume as commands.

A run whose work parks on calls that wait for the person (a tool call an approval rule
names, a question asked with `ask_person`) ends with `RUN_FINISHED` and an `interrupt`
outcome: one `Interrupt` per waiting call, its id the page's card key (`@Writer/1`). A
client answers in the next run's `resume`, each entry read as the person's own command to
that member, as the page's buttons send it:

| entry | command |
|---|---|
| `resolved`, `{"approved": true}` (and a `reason`, as a note) | `/approve ID [note]` |
| `resolved`, `{"approved": false, "reason": "..."}` | `/deny ID REASON` |
| `resolved`, `{"answer": "..."}` (a question) | `/answer ID TEXT` |
| `cancelled` | `/deny ID cancelled by the person` |

The kernel's rules apply unchanged: its reply (done, or refused and why) reaches the person
as any message does. Arguments edited by the person (`editedArgs`) are refused: a retinue
approval approves the call the model made, or denies it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ag_ui.core import Interrupt

from retinue_web.actions import ActionError
from retinue_web.approvals import command
from retinue_web.body import text_field

if TYPE_CHECKING:
    from ag_ui.core import ResumeEntry

#: What a client answers an approval with (the shape pydantic-ai's AG-UI adapter uses).
APPROVAL_SCHEMA = {
    "type": "object",
    "properties": {"approved": {"type": "boolean"}, "reason": {"type": "string"}},
    "required": ["approved"],
}
#: A denial's reason when the person gave none, or cancelled the interrupt.
DENIED = "denied by the person"
CANCELLED = "cancelled by the person"


def interrupt(card: dict[str, Any]) -> Interrupt:
    """A waiting call (the page's card) as an AG-UI interrupt."""
    meta = {"retinue": {"member": card["agent"], "rule": card.get("rule")}}
    if card["kind"] == "question":
        answer: dict[str, Any] = {"type": "string"}
        if card.get("choices"):
            answer["enum"] = card["choices"]
        schema = {"type": "object", "properties": {"answer": answer}, "required": ["answer"]}
        return Interrupt(
            id=card["key"],
            reason="question",
            message=card.get("question") or "",
            response_schema=schema,
            metadata=meta,
        )
    return Interrupt(
        id=card["key"],
        reason="tool_call",
        message=f"Approve {card['tool']}({card.get('args', '')})?",
        response_schema=APPROVAL_SCHEMA,
        metadata=meta,
    )


@dataclass(frozen=True)
class Order:
    """A command the person sends to answer one interrupt, and the work it resumes."""

    member: str
    command: str
    chain: str | None


def resume_orders(pending: dict[str, dict[str, Any]], entries: list[ResumeEntry]) -> list[Order]:
    """The commands that give `entries`' answers, or `ActionError` naming what is wrong
    (checked whole before any is sent)."""
    orders = []
    for entry in entries:
        card = pending.get(entry.interrupt_id)
        if card is None:
            raise ActionError(f"no call waits for the person under {entry.interrupt_id!r}")
        verb, text = _answer(card, entry)
        orders.append(Order(card["agent"], command(verb, card["id"], text), card.get("chain")))
    return orders


def _answer(card: dict[str, Any], entry: ResumeEntry) -> tuple[str, str]:
    if entry.status == "cancelled":
        return "deny", CANCELLED
    payload = entry.payload if isinstance(entry.payload, dict) else {}
    where = f"the answer to {entry.interrupt_id!r}"
    if card["kind"] == "question":
        answer = text_field(payload, "answer").strip()
        if not answer:
            raise ActionError(f"{where} needs its answer (payload.answer)")
        return "answer", answer
    approved = payload.get("approved")
    if not isinstance(approved, bool):
        raise ActionError(f"{where} needs payload.approved, true or false")
    if payload.get("editedArgs") is not None:
        raise ActionError(f"{where}: edited arguments are not taken; approve or deny the call")
    reason = text_field(payload, "reason").strip()
    return ("approve", reason) if approved else ("deny", reason or DENIED)
