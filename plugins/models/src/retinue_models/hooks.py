"""The `retinue` entry point of retinue-models: only `@hookimpl` functions."""

from __future__ import annotations

from collections.abc import Sequence

from retinue import hookimpl

from retinue_models.card import ModelTool


@hookimpl
def retinue_tool_cards() -> Sequence[type[ModelTool]]:
    """The models card. Not a default: an agent gets it by naming it in `tools`."""
    return [ModelTool]
