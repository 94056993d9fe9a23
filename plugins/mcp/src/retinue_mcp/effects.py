"""What an MCP tool's annotations say running it twice does, for the tool-effect ledger.

MCP servers may annotate a tool `readOnlyHint` (it changes nothing in its environment) or
`idempotentHint` (calling it again with the same arguments has no further effect). A tool
so annotated is declared `read_only` or `idempotent` and is simply run again after a crash;
any other is unknown, and a call of it that a crash cut short is told to the model.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from pydantic_ai.tools import ToolDefinition
from retinue import ToolEffect, effect_metadata


def effect_of_annotations(annotations: Any) -> ToolEffect | None:
    """`read_only`, `idempotent` or None (unknown) from a tool's MCP annotations."""
    if not isinstance(annotations, dict):
        return None
    if annotations.get("readOnlyHint") is True:
        return "read_only"
    if annotations.get("idempotentHint") is True:
        return "idempotent"
    return None


def declared(tool_def: ToolDefinition) -> ToolDefinition:
    """The definition with the effect its annotations declare, if any."""
    metadata = tool_def.metadata or {}
    effect = effect_of_annotations(metadata.get("annotations"))
    if effect is None:
        return tool_def
    return replace(tool_def, metadata={**metadata, **effect_metadata(effect)})
