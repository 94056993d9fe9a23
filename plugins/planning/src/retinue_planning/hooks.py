"""The `retinue` entry point of retinue-planning: only `@hookimpl` functions."""

from __future__ import annotations

from collections.abc import Sequence

from retinue import hookimpl

from retinue_planning.card import PlanningTool


@hookimpl
def retinue_tool_cards() -> Sequence[type[PlanningTool]]:
    """The planning card. Not a default: an agent gets it by naming it in `tools`."""
    return [PlanningTool]
