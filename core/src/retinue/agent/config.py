"""`AgentConfig` and `AgentState`: how an agent is set up and what it keeps for a resume."""

from __future__ import annotations

import warnings
from typing import Any

from pydantic import Field, SerializeAsAny, model_validator

from retinue.actors.config import BaseConfig, BaseState
from retinue.llm.config import CompactionConfig, ModelConfig, RuntimeConfig
from retinue.llm.limits import AgentUsageLimits, RunUsageLimits
from retinue.llm.prompt import PromptTemplate
from retinue.tools.card import ToolCard
from retinue.tools.state import ToolState


class AgentConfig(BaseConfig):
    """Everything a `BaseAgent` is built from; plain data, so a team can be saved and resumed.

    `tools` takes card instances (code) or card names (team files); the installed default
    cards are added at start without touching this list.
    """

    prompt: PromptTemplate = Field(default_factory=PromptTemplate)
    model_cfg: ModelConfig = Field(default_factory=ModelConfig)
    runtime_cfg: RuntimeConfig = Field(default_factory=RuntimeConfig)
    run_usage_limits: RunUsageLimits = Field(default_factory=RunUsageLimits)
    agent_usage_limits: AgentUsageLimits = Field(default_factory=AgentUsageLimits)
    compaction_cfg: CompactionConfig = Field(default_factory=CompactionConfig)
    tools: list[SerializeAsAny[ToolCard] | str] = Field(default_factory=list)

    @model_validator(mode="before")
    @classmethod
    def _old_usage_limits(cls, data: Any) -> Any:
        if not isinstance(data, dict) or "usage_limits" not in data:
            return data
        data = dict(data)
        old = data.pop("usage_limits")
        if "run_usage_limits" in data:
            raise ValueError("pass run_usage_limits or the deprecated usage_limits, not both")
        warnings.warn(
            "AgentConfig(usage_limits=...) is deprecated; use run_usage_limits=",
            DeprecationWarning,
            stacklevel=4,
        )
        data["run_usage_limits"] = _as_run_limits(old)
        return data

    @property
    def usage_limits(self) -> RunUsageLimits:
        """Deprecated name of `run_usage_limits`."""
        warnings.warn(
            "AgentConfig.usage_limits is deprecated; read run_usage_limits",
            DeprecationWarning,
            stacklevel=2,
        )
        return self.run_usage_limits


def _as_run_limits(old: Any) -> Any:
    """Accept the run tier itself or a pydantic-ai `UsageLimits` under the old name."""
    if isinstance(old, RunUsageLimits | dict):
        return old
    fields = {
        "request_limit": "run_request_limit",
        "tool_calls_limit": "tool_calls_limit",
        "input_tokens_limit": "input_tokens_limit",
        "output_tokens_limit": "output_tokens_limit",
        "total_tokens_limit": "total_tokens_limit",
    }
    return RunUsageLimits(
        **{new: getattr(old, name) for name, new in fields.items() if hasattr(old, name)}
    )


class AgentState(BaseState):
    """What an agent keeps between messages and across a resume."""

    backstory: str = ""
    tool_state: ToolState = Field(default_factory=ToolState)
