"""retinue.llm: the model runner every agent owns.

Configuration (`ModelConfig`, `RuntimeConfig`, `CompactionConfig`, `PromptTemplate`, the two
usage tiers), the shared model loop, `ReactAgent`, its events and the context manager.

The configuration names import without pydantic-ai; the runner names load it on first use,
so `import retinue` stays cheap for code that only reads or writes configuration.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from retinue._lazy import lazy_exports
from retinue.llm.config import CompactionConfig, ModelConfig, RuntimeConfig
from retinue.llm.errors import (
    AgentUsageLimitError,
    ConfigError,
    RunInterruptedError,
    RunTimeoutError,
    RunUsageLimitError,
    UsageLimitError,
)
from retinue.llm.events import (
    ContextResetEvent,
    LlmEvent,
    LlmUsageEvent,
    ModelMessageEvent,
    RunFinishedEvent,
    RunStartedEvent,
    ToolCallEvent,
    parse_llm_event,
)
from retinue.llm.limits import AgentUsageLimits, RunUsageLimits, UsageLimits
from retinue.llm.loop import configure_model_loop, get_model_loop
from retinue.llm.prompt import PromptTemplate
from retinue.llm.usage import AgentUsageSummary, RunUsageSummary, aggregate_usage

if TYPE_CHECKING:
    from retinue.llm.context import ContextManager
    from retinue.llm.models import get_model
    from retinue.llm.react_agent import ReactAgent

_LAZY = {
    "ContextManager": "retinue.llm.context",
    "ReactAgent": "retinue.llm.react_agent",
    "get_model": "retinue.llm.models",
}

__all__ = [
    "AgentUsageLimitError",
    "AgentUsageLimits",
    "AgentUsageSummary",
    "CompactionConfig",
    "ConfigError",
    "ContextManager",
    "ContextResetEvent",
    "LlmEvent",
    "LlmUsageEvent",
    "ModelConfig",
    "ModelMessageEvent",
    "PromptTemplate",
    "ReactAgent",
    "RunFinishedEvent",
    "RunInterruptedError",
    "RunStartedEvent",
    "RunTimeoutError",
    "RunUsageLimitError",
    "RunUsageLimits",
    "RunUsageSummary",
    "RuntimeConfig",
    "ToolCallEvent",
    "UsageLimitError",
    "UsageLimits",
    "aggregate_usage",
    "configure_model_loop",
    "get_model",
    "get_model_loop",
    "parse_llm_event",
]


__getattr__ = lazy_exports(__name__, _LAZY)
