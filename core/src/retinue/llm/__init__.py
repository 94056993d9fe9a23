"""retinue.llm: the model runner every agent owns.

Configuration (`ModelConfig`, `RuntimeConfig`, `CompactionConfig`, `PromptTemplate`, the two
usage tiers, and `RunnerConfig`, all a runner is built from), the shared model loop,
`ReactAgent`, its events and the context manager.

The configuration names import without pydantic-ai; the runner names load it on first use,
so `import retinue` stays cheap for code that only reads or writes configuration.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from retinue._lazy import by_name, lazy_exports
from retinue.llm.config import CompactionConfig, ModelConfig, RuntimeConfig
from retinue.llm.errors import (
    AgentUsageLimitError,
    ConfigError,
    RunInterruptedError,
    RunTimeoutError,
    RunUsageLimitError,
    TeamBudgetExhaustedError,
    UsageLimitError,
)
from retinue.llm.events import (
    ContextResetEvent,
    LlmEvent,
    LlmUsageEvent,
    ModelMessageEvent,
    ModelSwitchedEvent,
    RunFinishedEvent,
    RunStartedEvent,
    ToolCallEvent,
    ToolDefinitionsEvent,
)
from retinue.llm.events import parse_llm_event as parse_llm_event
from retinue.llm.limits import AgentUsageLimits, RunUsageLimits, UsageLimits
from retinue.llm.loop import configure_model_loop as configure_model_loop
from retinue.llm.loop import get_model_loop as get_model_loop
from retinue.llm.prompt import PromptTemplate
from retinue.llm.runner_config import RunnerConfig
from retinue.llm.team_usage import team_limits_from_events, team_usage_from_events
from retinue.llm.tool_calls import ToolCallFinishedEvent, ToolCallStartedEvent
from retinue.llm.tool_effects import ToolEffect, effect_metadata, tool_effect
from retinue.llm.usage import AgentUsageSummary, RunUsageSummary, aggregate_usage

if TYPE_CHECKING:  # the names below load pydantic-ai, so they load on first use (`_LAZY`)
    from retinue.llm.context import ContextManager as ContextManager
    from retinue.llm.models import get_model as get_model
    from retinue.llm.react_agent import ReactAgent
    from retinue.llm.run_agents import SharedCapability

_LAZY = by_name(
    {
        "retinue.llm.context": ("ContextManager",),
        "retinue.llm.models": ("get_model",),
        "retinue.llm.react_agent": ("ReactAgent",),
        "retinue.llm.run_agents": ("SharedCapability",),
    }
)

__all__ = [
    "AgentUsageLimitError",
    "AgentUsageLimits",
    "AgentUsageSummary",
    "CompactionConfig",
    "ConfigError",
    "ContextResetEvent",
    "LlmEvent",
    "LlmUsageEvent",
    "ModelConfig",
    "ModelMessageEvent",
    "ModelSwitchedEvent",
    "PromptTemplate",
    "ReactAgent",
    "RunFinishedEvent",
    "RunInterruptedError",
    "RunStartedEvent",
    "RunTimeoutError",
    "RunUsageLimitError",
    "RunUsageLimits",
    "RunUsageSummary",
    "RunnerConfig",
    "RuntimeConfig",
    "SharedCapability",
    "TeamBudgetExhaustedError",
    "ToolCallEvent",
    "ToolCallFinishedEvent",
    "ToolCallStartedEvent",
    "ToolDefinitionsEvent",
    "ToolEffect",
    "UsageLimitError",
    "UsageLimits",
    "aggregate_usage",
    "effect_metadata",
    "team_limits_from_events",
    "team_usage_from_events",
    "tool_effect",
]

if not TYPE_CHECKING:  # hidden from type checkers, so an unknown name is an error there
    __getattr__ = lazy_exports(__name__, _LAZY)
