"""The team addressing convention: `@Name` is a member, a bare word is a role to hire."""

from __future__ import annotations

import logging
from typing import Protocol

from retinue.actors.address import ActorAddress

logger = logging.getLogger(__name__)

NO_SUCH_MEMBER = "no such member in the team"


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


def locate_recipient(agent: TeamResolver, recipient: str) -> tuple[ActorAddress | None, str | None]:
    """The address a recipient string stands for, or None and the reason it has none.

    A member is looked up, a role is hired; neither ever raises, so one bad recipient in a
    turn cannot cost the turn's other messages.
    """
    recipient = recipient.strip()
    try:
        if is_member_name(recipient):
            member = agent.get_team_member(recipient)
            return (member, None) if member is not None else (None, NO_SUCH_MEMBER)
        return agent.hire_member(recipient), None
    except Exception as exc:
        return None, str(exc) or type(exc).__name__


def resolve_recipient(agent: TeamResolver, recipient: str) -> ActorAddress | None:
    """The address a recipient string stands for: a member, or a freshly hired one.

    None, with a warning logged saying why, for an unknown `@Name` or a hire that cannot
    happen (an unknown role, a full team, no team plugin installed): a router skips it and
    goes on with its other recipients.
    """
    address, reason = locate_recipient(agent, recipient)
    if address is None:
        who = getattr(getattr(agent, "myAddress", None), "name", "an agent")
        logger.warning("%s: cannot reach %s: %s", who, recipient.strip(), reason)
    return address
