"""The `retinue` entry point of retinue-team: only `@hookimpl` functions."""

from __future__ import annotations

from collections.abc import Sequence

from retinue import hookimpl

from retinue_team.card import TeamTool


@hookimpl
def retinue_tool_cards() -> Sequence[type[TeamTool]]:
    """The team card; it is a default, so every agent can hire and fire."""
    return [TeamTool]
