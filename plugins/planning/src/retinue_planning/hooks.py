"""The `retinue` entry point of retinue-planning: only `@hookimpl` functions."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from retinue import hookimpl

from retinue_planning.card import PlanningTool

if TYPE_CHECKING:
    from retinue import Panel


@hookimpl
def retinue_tool_cards() -> Sequence[type[PlanningTool]]:
    """The planning card. Not a default: an agent gets it by naming it in `tools`."""
    return [PlanningTool]


@hookimpl
def retinue_panels() -> Sequence[type[Panel]]:
    """The board as a frontend's panel (`retinue web` shows it)."""
    from retinue_planning.panel import PlanningPanel

    return [PlanningPanel]
