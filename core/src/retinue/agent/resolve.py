"""The team addressing convention: `@Name` is a member, a bare word is a role to hire."""

from __future__ import annotations

from typing import Protocol

from retinue.actors.address import ActorAddress


class TeamResolver(Protocol):
    """What `resolve_recipient` needs from an agent."""

    def get_team_member(self, name: str) -> ActorAddress | None:
        """The member called `name` (with its `@`), or None."""
        ...

    def hire_member(self, role: str) -> ActorAddress:
        """Hire a new member for `role`; raises when that is impossible."""
        ...


def is_member_name(recipient: str) -> bool:
    """Whether a recipient string names a member rather than a role."""
    return recipient.strip().startswith("@")


def resolve_recipient(agent: TeamResolver, recipient: str) -> ActorAddress | None:
    """The address a recipient string stands for: a member, or a freshly hired one.

    Returns None for an unknown `@Name`; a hire that fails raises (the caller reports it).
    """
    recipient = recipient.strip()
    if is_member_name(recipient):
        return agent.get_team_member(recipient)
    return agent.hire_member(recipient)
