"""`TracingTool`: a role's tracing settings, the switch a team file turns.

The card gives the model nothing (no tool, prompt, context or command): it only carries
settings, read by the plugin when an agent of the role is created. Without it an agent is
traced with the plugin's settings whenever a tracer provider is there to receive spans.

    [roles.Developer]
    tools = [{ card = "tracing", include_content = true }]   # prompts and answers too
    tools = [{ card = "tracing", enabled = false }]          # never trace this role
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

from retinue import ToolCard


class TracingTool(ToolCard):
    """How the agents of one role are traced (by retinue-otel)."""

    name: ClassVar[str] = "tracing"
    """How team files and `AgentConfig.tools` name this card: `tools=["tracing"]`."""

    enabled: bool = True
    """False: this role's turns make no spans, and pydantic-ai is not instrumented for it."""
    include_content: bool | None = None
    """Whether spans carry message texts, prompts, answers and tool arguments; None: the
    plugin's setting (off unless `OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true`)."""


def tracing_card(tools: Sequence[ToolCard | str]) -> TracingTool | None:
    """The tracing card among an agent's tools (a name stands for the default settings)."""
    for tool in tools:
        if isinstance(tool, TracingTool):
            return tool
        if tool == TracingTool.name:
            return TracingTool()
    return None
