"""A member asked to answer a parked call besides the person: its reviewer.

A rule's `reviewer` names a member (`@QA`) or a role (its first member, else one hired
within the parked agent's `routes_to`). When a call under that rule parks, the reviewer is
sent the call as a request in the parked turn's chain; its answer, a message to the parked
agent that starts with `/approve ID [note]` or `/deny ID REASON`, is honoured for the calls
it was asked about and no other, and the person hears the verdict. The person may still
answer first: the reviewer's later answer is then refused as stale, as anyone's would be.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from retinue.actors.address import ActorAddress
from retinue.agent.events import PendingCall
from retinue.agent.messages import AgentMessage
from retinue.agent.routing import is_member_name

if TYPE_CHECKING:
    from retinue.agent.agent import BaseAgent

_VERDICT = re.compile(r"\s*/(approve|deny)\s+(\d+)\b\s*(.*)\Z", re.DOTALL)


def assign(agent: BaseAgent, calls: list[PendingCall]) -> list[str]:
    """Locate each call's reviewer (its name replaces the rule's word for it); the lines for
    the person about reviewers that cannot be reached (the person answers those calls)."""
    problems = []
    for call in calls:
        if not call.reviewer:
            continue
        address, why = _reviewer(agent, call.reviewer)
        if address is None:
            problems.append(f"  [{call.id}] reviewer {call.reviewer} cannot be asked: {why}")
            call.reviewer = None
        else:
            call.reviewer = address.name
    return problems


def _reviewer(agent: BaseAgent, wanted: str) -> tuple[ActorAddress | None, str | None]:
    team = agent.team
    if team is not None and not is_member_name(wanted):
        for member in team.directory.members.values():
            if member.role == wanted.strip() and member != agent.myAddress:
                return member, None
    address, why = agent.router.locate(wanted)
    if address == agent.myAddress:
        return None, "an agent does not review its own calls"
    return address, why


def ask(agent: BaseAgent, calls: list[PendingCall]) -> None:
    """Send each reviewer the calls it is asked to answer, one request a reviewer."""
    by_reviewer: dict[str, list[PendingCall]] = {}
    for call in calls:
        if call.reviewer:
            by_reviewer.setdefault(call.reviewer, []).append(call)
    for name, theirs in by_reviewer.items():
        address = agent.get_team_member(name)
        if address is None:
            continue
        lines = [
            f"{agent.myAddress.name} asks you to review tool calls before they run; answer each "
            "with /approve ID [note] or /deny ID REASON as your whole message to it:",
            *(call.describe() for call in theirs),
        ]
        agent.send(address, AgentMessage(content="\n".join(lines), type="request"))


def verdict(agent: BaseAgent, message: AgentMessage) -> bool:
    """Take a reviewer's answer to a parked call; False when `message` is not one (it is
    then held or handled as any mail)."""
    approvals = agent.approvals
    sender = message.sender
    if sender is None or sender.is_user_proxy or not approvals.reviewed_by(sender.name):
        return False
    theirs = {call.id for call in approvals.waiting if call.reviewer == sender.name}
    found = _VERDICT.match(message.content)
    if found is None:
        if not theirs:  # ordinary mail from a member that reviewed before
            return False
        ids = ", ".join(sorted(theirs))
        _tell(agent, sender, f"/approve ID [note] or /deny ID REASON, please (pending: {ids}).")
        return True
    verb, call_id, words = found.group(1), found.group(2), found.group(3).strip()
    if call_id not in theirs:
        _tell(agent, sender, approvals.not_yours(call_id, f"/{verb}"))
        return True
    answer = approvals.approve if verb == "approve" else approvals.deny
    line = answer(call_id, words)
    if line.startswith(f"/{verb}"):  # refused (a deny without a reason): the reviewer retries
        _tell(agent, sender, line)
    else:
        agent.notify_human(f"{sender.name} for {agent.myAddress.name}: {line}")
    return True


def _tell(agent: BaseAgent, reviewer: ActorAddress, text: str) -> None:
    agent.send(reviewer, AgentMessage(content=text, type="notification"))
