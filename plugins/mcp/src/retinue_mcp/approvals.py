"""Calls that wait for the person, over MCP: one elicitation each, or a plain notice.

A member of a served team whose tool call waits for the person's yes (its role's `approve`
rules), or who asks the person (`ask_person`), parks its run ([approvals](docs/approvals.md)).
When that happens in the chain of a waiting `ask`, the client is the person: a client that
can elicit gets one form per call (approve and a note; or the question's answer, a choice
when it has choices), and the answer goes to the member as the person's own command
(`/approve ID note`, `/deny ID REASON`, `/answer ID TEXT`), so the kernel's strict answers
apply. A client that cannot elicit (or whose elicitation fails) gets the calls as the
`ask`'s result, with how to answer them: another `ask` of `@Member /approve ID`.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from mcp import types
from mcp.shared.exceptions import MCPError
from retinue import ActorAddress, PendingCall

logger = logging.getLogger("retinue_mcp.serve")

DECLINED = "declined over MCP"
"""The reason a denial carries when the client declined or cancelled without giving one."""

Elicit = Callable[[str, dict[str, Any]], Awaitable[types.ElicitResult]]
"""Ask the client's person: the message and the requested schema; their answer."""


@dataclass(frozen=True)
class Parked:
    """A member's run parked on calls in a waiting request's chain."""

    agent: ActorAddress
    calls: list[PendingCall]


def can_elicit(capabilities: types.ClientCapabilities | None) -> bool:
    """Whether the client takes form elicitations (an empty `elicitation` object says so)."""
    found = capabilities.elicitation if capabilities is not None else None
    return found is not None and (found.form is not None or found.url is None)


def form(agent: str, call: PendingCall) -> tuple[str, dict[str, Any]]:
    """The elicitation for one call: what the person reads, and the fields they fill in."""
    line = call.describe().strip()
    if call.kind == "question":
        answer: dict[str, Any] = {"type": "string", "title": "Answer"}
        choices = call.args.get("choices") if isinstance(call.args, dict) else None
        if choices:
            answer["enum"] = [str(choice) for choice in choices]
        schema = {"type": "object", "properties": {"answer": answer}, "required": ["answer"]}
        return f"{agent} asks you:\n{line}", schema
    schema = {
        "type": "object",
        "properties": {
            "approve": {"type": "boolean", "title": "Approve", "description": "run this call"},
            "note": {
                "type": "string",
                "title": "Note",
                "description": "a note with a yes; the reason, with a no",
            },
        },
        "required": ["approve"],
    }
    return f"{agent} waits for your approval:\n{line}", schema


def command(call: PendingCall, result: types.ElicitResult) -> str:
    """The person's command an elicitation's result is: approve, answer, or deny with why."""
    content = result.content or {}
    note = str(content.get("note") or "").strip()
    if result.action == "accept" and call.kind == "question":
        given = str(content.get("answer") or "").strip()
        if given:  # the kernel checks it against the choices, and refuses what is not one
            return f"/answer {call.id} {given}"
    elif result.action == "accept" and content.get("approve") is True:
        return f"/approve {call.id} {note}".rstrip()
    return f"/deny {call.id} {note or DECLINED}"


async def answer(
    parked: Parked, elicit: Elicit, send: Callable[[str], Awaitable[None]]
) -> Parked | None:
    """Ask the person about each parked call, one elicitation each, and send their answers;
    the calls left unasked when the client's elicitation failed (to tell it plainly)."""
    for index, call in enumerate(parked.calls):
        message, schema = form(parked.agent.name, call)
        try:
            result = await elicit(message, schema)
        except MCPError as exc:  # the client refused, or has no channel back to it now
            logger.info("%s: the client's elicitation failed: %s", parked.agent.name, exc)
            return Parked(parked.agent, parked.calls[index:])
        await send(command(call, result))
    return None


def notice(parked: Parked) -> str:
    """What a client that cannot elicit is told instead: the calls, and how to answer."""
    name = parked.agent.name
    ways = []
    for call in parked.calls:
        if call.kind == "question":
            ways.append(f'ask("{name} /answer {call.id} TEXT")')
        else:
            ways.append(f'ask("{name} /approve {call.id}") or ask("{name} /deny {call.id} REASON")')
    lines = [f"{name} waits for you; nothing runs until you answer:"]
    lines.extend(call.describe() for call in parked.calls)
    lines.append(f"Answer with {', '.join(ways)}; the team's answer then comes to you in team().")
    return "\n".join(lines)
