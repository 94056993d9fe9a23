"""Who created whom in a team (`TeamMember`, a roster line), and the order a recursive stop
takes a member and what it created in.

Every actor knows its parent (the actor that created it; a hire's is the member that hired
it), and the orchestrator's roster keeps each member's (`TeamMember.parent`, recorded in its
`StartMessage`, so a resumed team has the same tree). A recursive stop walks that tree depth
first: every member stops after the members it created, siblings in the order they joined,
so nobody is left working for a member that has gone.
"""

from __future__ import annotations

from collections.abc import Iterable

from pydantic import BaseModel, ConfigDict

from retinue.actors.address import ActorAddress


class TeamMember(BaseModel):
    """One roster line: who, which role, who hired them, and whether they are busy now."""

    model_config = ConfigDict(defer_build=True)

    address: ActorAddress
    parent: ActorAddress | None = None
    busy: bool = False

    @property
    def name(self) -> str:
        return self.address.name

    @property
    def role(self) -> str:
        return self.address.role


def descendants(members: Iterable[TeamMember], root: ActorAddress) -> list[ActorAddress]:
    """The members `root` created, and those they created, each after its own; `root` not
    included. A person's proxy and what it created are left out: no stop of another's
    reaches a person."""
    children: dict[str, list[ActorAddress]] = {}
    for member in members:
        if member.parent is not None and not member.address.is_user_proxy:
            children.setdefault(member.parent.agent_id, []).append(member.address)
    order: list[ActorAddress] = []
    seen = {root.agent_id}  # a record is data: a parent cycle in it must not loop forever
    stack = [(root, iter(children.get(root.agent_id, ())))]
    while stack:
        address, pending = stack[-1]
        child = next((c for c in pending if c.agent_id not in seen), None)
        if child is None:
            stack.pop()
            if stack:  # the root itself is the caller's to stop
                order.append(address)
            continue
        seen.add(child.agent_id)
        stack.append((child, iter(children.get(child.agent_id, ()))))
    return order


def roots(members: Iterable[TeamMember]) -> list[ActorAddress]:
    """The members no current member created (the orchestrator's own, and those whose
    creator has left): a stop of the whole team starts from each of them."""
    listed = list(members)
    present = {member.address.agent_id for member in listed}
    return [
        member.address
        for member in listed
        if member.parent is None or member.parent.agent_id not in present
    ]
