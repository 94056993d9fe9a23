"""The `retinue` entry point of retinue-workspace: only `@hookimpl` functions."""

from __future__ import annotations

from collections.abc import Sequence

from retinue import hookimpl

from retinue_workspace.card import WorkspaceTool


@hookimpl
def retinue_tool_cards() -> Sequence[type[WorkspaceTool]]:
    """The workspace card. Not a default: an agent gets it by naming it in `tools`."""
    return [WorkspaceTool]
