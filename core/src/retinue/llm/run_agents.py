"""The pydantic-ai agents a runner drives: one per output type, each built once.

Building an agent builds its output schema, which costs a good share of a short run, so a
runner keeps one agent per output type, made from its configuration on first use.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from pydantic_ai import Agent, AgentCapability
from pydantic_ai.agent import AgentRetries
from pydantic_ai.models import Model
from pydantic_ai.settings import ModelSettings
from pydantic_ai.tools import Tool
from pydantic_ai.toolsets import AbstractToolset

from retinue.llm.config import RuntimeConfig


def output_key(output_type: Any) -> object:
    """The key the agent for `output_type` is kept under (its identity when unhashable)."""
    try:
        hash(output_type)
    except TypeError:
        return ("unhashable", id(output_type))
    key: object = output_type
    return key


def build_run_agent(
    model: Model,
    output_type: Any,
    *,
    name: str,
    instructions: str | None,
    tools: Sequence[Tool[Any] | Callable[..., Any]],
    toolsets: Sequence[AbstractToolset[Any]],
    capabilities: Sequence[AgentCapability[Any]],
    runtime: RuntimeConfig,
    settings: ModelSettings,
) -> Agent[Any, Any]:
    """A pydantic-ai agent that answers with `output_type` under the runtime's retry policy."""
    output_retries = runtime.output_retries
    retries: AgentRetries = {
        "tools": runtime.retries,
        "output": runtime.retries if output_retries is None else output_retries,
    }
    return Agent(
        model,
        output_type=output_type,
        instructions=instructions,
        tools=tools,
        toolsets=toolsets,
        capabilities=capabilities,
        retries=retries,
        end_strategy=runtime.end_strategy,
        model_settings=settings,
        tool_timeout=runtime.tool_timeout,
        name=name,
        defer_model_check=True,
    )
