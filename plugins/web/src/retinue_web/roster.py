"""The roster the page shows: one `Member` row each, the person's tasks (`Chain`), as JSON.

`TeamFold` keeps these up to date as it folds the record; the JSON shapes here are what a
snapshot and a delta both carry, so the page reads a member the same way from either.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from retinue import TeamUsage


@dataclass
class Member:
    """One row of the roster: who, what it is doing, what it spent."""

    name: str
    role: str
    person: bool
    hired_by: str | None
    state: str = "idle"
    detail: str = ""
    chain: str | None = None
    left: bool = False
    failed: str = ""
    waiting_for: dict[tuple[str, str], None] = field(default_factory=dict)

    def settle(self) -> None:
        """The state when no run is in flight: failed, waiting or idle."""
        self.chain = None
        if self.left:
            self.state, self.detail = "left", ""
        elif self.failed:
            self.state, self.detail = "failed", self.failed
        elif self.waiting_for:
            names = dict.fromkeys(member for _, member in self.waiting_for)
            self.state, self.detail = "waiting", "for " + ", ".join(names)
        else:
            self.state, self.detail = "idle", ""


@dataclass
class Chain:
    """A task the person started: where it went first and what it asked."""

    chain_id: str
    root: str
    text: str
    position: int


def member_json(member: Member, usage: TeamUsage) -> dict[str, Any]:
    """One roster row as the page reads it, with what the member spent so far."""
    spent = usage.by_member.get(member.name)
    return {
        "name": member.name,
        "role": member.role,
        "person": member.person,
        "hired_by": member.hired_by,
        "state": member.state,
        "detail": member.detail,
        "chain": member.chain,
        "usage": spent.model_dump() if spent is not None else None,
    }


def chains_json(members: dict[str, Member], chains: dict[str, Chain]) -> list[dict[str, Any]]:
    """The tasks with members working on them now, each with who and what it asked."""
    working: dict[str, list[str]] = {}
    for member in members.values():
        if member.state == "working" and member.chain is not None:
            working.setdefault(member.chain, []).append(member.name)
    found = []
    for chain_id, names in working.items():
        chain = chains.get(chain_id)
        found.append(
            {
                "chain": chain_id,
                "root": chain.root if chain is not None else None,
                "text": chain.text if chain is not None else "",
                "working": names,
            }
        )
    return found
