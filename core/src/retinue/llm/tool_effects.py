"""What running a tool twice does: a card's declaration, read by the tool-effect ledger.

A turn cut short by a crash runs again from its start. A call of a tool declared
`read_only` (it changes nothing) or `idempotent` (running it again leaves things as one
run did) is simply made again; a call of any other tool that started and never finished is
told to the model in the turn's rerun as "unknown after crash" (docs/resume.md).

Declared on a plain function (or a card's method) with the decorator, on a pydantic-ai
`Tool` or a toolset's `ToolDefinition` through its metadata:

    @tool_effect("read_only")
    def look_up(city: str) -> str: ...

    Tool(write_file, metadata=effect_metadata("idempotent"))
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal, TypeVar, get_args

if TYPE_CHECKING:
    from pydantic_ai.tools import ToolDefinition

ToolEffect = Literal["read_only", "idempotent"]
"""`read_only`: changes nothing; `idempotent`: a second run leaves what the first did."""

#: The key of a tool's metadata (`ToolDefinition.metadata`) that holds its effect.
EFFECT_KEY = "retinue_effect"
_ATTRIBUTE = "__retinue_effect__"
_EFFECTS: frozenset[str] = frozenset(get_args(ToolEffect))

T = TypeVar("T")


def _checked(effect: str) -> ToolEffect:
    if effect not in _EFFECTS:
        raise ValueError(f"a tool's effect is read_only or idempotent, not {effect!r}")
    return effect  # type: ignore[return-value]


def effect_metadata(effect: ToolEffect) -> dict[str, Any]:
    """A tool's metadata declaring `effect` (merge it into a `ToolDefinition`'s own)."""
    return {EFFECT_KEY: _checked(effect)}


def tool_effect(effect: ToolEffect) -> Callable[[T], T]:
    """Declare what running a function tool (or a `Tool`) twice does."""
    checked = _checked(effect)

    def declare(tool: T) -> T:
        from pydantic_ai import Tool  # only when a card declares one: the kernel loads light

        if isinstance(tool, Tool):
            tool.metadata = {**(tool.metadata or {}), EFFECT_KEY: checked}
        else:
            setattr(tool, _ATTRIBUTE, checked)
        return tool

    return declare


def function_effect(function: Any) -> ToolEffect | None:
    """The effect a function (or bound method) was declared with, if any."""
    effect = getattr(function, _ATTRIBUTE, None)
    return effect if effect in _EFFECTS else None


def effect_of(tool_def: ToolDefinition) -> ToolEffect | None:
    """The effect a tool's definition declares; None: unknown (it may change anything)."""
    effect = (tool_def.metadata or {}).get(EFFECT_KEY)
    return effect if effect in _EFFECTS else None
