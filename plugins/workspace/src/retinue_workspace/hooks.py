"""The `retinue` entry point of retinue-workspace: only `@hookimpl` functions."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from retinue import hookimpl

from retinue_workspace.card import WorkspaceTool

if TYPE_CHECKING:
    from retinue import Panel


@hookimpl
def retinue_tool_cards() -> Sequence[type[WorkspaceTool]]:
    """The workspace card. Not a default: an agent gets it by naming it in `tools`."""
    return [WorkspaceTool]


@hookimpl
def retinue_panels() -> Sequence[type[Panel]]:
    """The workspace's files as a frontend's panel (`retinue web` shows it)."""
    from retinue_workspace.panel import WorkspacePanel

    return [WorkspacePanel]
