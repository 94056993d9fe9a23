"""A stand-in for retinue-team's hiring, so the quick-start team runs beside this plugin alone.

Routing hires through a card's `hire_member` command (a bare role as recipient); the `otel`
tox environment installs no other plugin, so the tests give the team this card instead. A
script run with discovery uses it only where retinue-team is not installed (`hiring_plugins`).
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable, Sequence
from types import ModuleType
from typing import Any, ClassVar

from retinue import ActorAddress, ToolCard, hookimpl


class HiringTool(ToolCard):
    """Hires by role and fires by name through the agent's typed team view."""

    name: ClassVar[str] = "hiring"
    default: ClassVar[bool] = True

    def get_commands(self) -> Sequence[Callable[..., Any]]:
        return [self.hire_member, self.fire_member]

    def hire_member(self, role: str) -> ActorAddress:
        """Hire a new member for a role."""
        team = self.host.team
        assert team is not None, "hiring needs a team"
        return team.hire(role)

    def fire_member(self, name: str) -> str:
        """Fire a member by @name."""
        team = self.host.team
        assert team is not None, "firing needs a team"
        member = team.members[name]
        team.fire(member)
        return f"Fired {name}."


@hookimpl
def retinue_tool_cards() -> Sequence[type[ToolCard]]:
    return [HiringTool]


hiring = ModuleType("hiring_stand_in")
hiring.retinue_tool_cards = retinue_tool_cards  # type: ignore[attr-defined]


def hiring_plugins() -> list[ModuleType]:
    """The stand-in, unless retinue-team is installed (and so discovered) to hire instead."""
    return [] if importlib.util.find_spec("retinue_team") is not None else [hiring]
