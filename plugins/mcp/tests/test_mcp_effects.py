"""An MCP tool's annotations as the tool-effect ledger reads them."""

from __future__ import annotations

from typing import Any

from pydantic_ai.tools import ToolDefinition
from retinue import effect_metadata
from retinue_mcp.effects import declared


def declares(annotations: object) -> dict[str, Any]:
    tool = ToolDefinition(name="t", metadata={"annotations": annotations, "meta": None})
    metadata = declared(tool).metadata or {}
    return {k: v for k, v in metadata.items() if k not in ("annotations", "meta")}


def test_read_only_and_idempotent_hints_declare_the_effect_and_nothing_else_does() -> None:
    both = {"readOnlyHint": True, "idempotentHint": True}
    assert declares(both) == effect_metadata("read_only")
    assert declares({"idempotentHint": True}) == effect_metadata("idempotent")
    for unknown in (None, {}, {"readOnlyHint": False}, {"destructiveHint": True}, "x"):
        assert declares(unknown) == {}
