"""The `retinue` entry point of retinue-knowledge: only `@hookimpl` functions."""

from __future__ import annotations

from collections.abc import Sequence

from retinue import hookimpl

from retinue_knowledge.card import KnowledgeTool


@hookimpl
def retinue_tool_cards() -> Sequence[type[KnowledgeTool]]:
    """The knowledge card. Not a default: an agent gets it by naming it in `tools`."""
    return [KnowledgeTool]
