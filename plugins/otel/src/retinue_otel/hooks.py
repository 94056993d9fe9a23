"""The `retinue` entry point of retinue-otel: only `@hookimpl` functions.

They hand over to one `Tracing()` for the process, made on first use: this module is imported
whenever a plugin manager is built, so it imports nothing of OpenTelemetry itself.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from typing import TYPE_CHECKING, Any

from retinue import hookimpl

from retinue_otel.card import TracingTool

if TYPE_CHECKING:
    from pydantic_ai.capabilities import AbstractCapability
    from retinue import AgentConfig, TurnObserver

    from retinue_otel.plugin import Tracing


@cache
def _tracing() -> Tracing:
    from retinue_otel.plugin import Tracing

    return Tracing()


@hookimpl
def retinue_tool_cards() -> Sequence[type[TracingTool]]:
    """The tracing card, a role's settings. Not a default: a team file names it to use it."""
    return [TracingTool]


@hookimpl
def retinue_capabilities(config: AgentConfig) -> Sequence[AbstractCapability[Any]]:
    """pydantic-ai's instrumentation for each agent that is traced."""
    return _tracing().retinue_capabilities(config)


@hookimpl
def retinue_turn_observers(config: AgentConfig) -> Sequence[TurnObserver]:
    """A tracer of the turns of each agent that is traced."""
    return _tracing().retinue_turn_observers(config)
