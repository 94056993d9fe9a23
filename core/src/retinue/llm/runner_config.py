"""`RunnerConfig`: everything a `ReactAgent` is built from, as one value.

It imports no pydantic-ai (the live objects it holds are named for type checkers only), so
it sits with the configuration names of `retinue.llm`, cheap to import.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from retinue.llm.config import CompactionConfig, ModelConfig, RuntimeConfig
from retinue.llm.limits import AgentUsageLimits, RunUsageLimits

if TYPE_CHECKING:
    from pydantic_ai import AgentCapability
    from pydantic_ai.models import Model
    from pydantic_ai.tools import Tool
    from pydantic_ai.toolsets import AbstractToolset

    from retinue.llm.context import EventSink
    from retinue.llm.prompt import SystemPrompt
    from retinue.llm.run_hooks import RunHooks, ToolHooks
    from retinue.team.budget import TeamBudget


@dataclass(frozen=True, slots=True, kw_only=True)
class RunnerConfig:
    """What a model runner (`ReactAgent`) runs under, is given, and is wired to.

    A frozen dataclass, not a pydantic model: besides the serializable configs (validated
    where they are made) it holds live objects, a model, tool functions, toolsets, hooks, an
    event sink and the team's budget, which have no schema to check and are never written
    out. Flat, not nested: every field is optional and independent of the others, so nested
    groups would make each caller name a group to set one field. The fields come in three
    groups, in this order: the configs and limits, the prompt and tool inputs, the wiring.
    The sequences are kept as tuples, so a config shared by several runners stays as given.
    """

    # ---------------------------------------------------------------- configs and limits
    #: Which model, and its request settings; the model is built from it unless `model` is given.
    model_cfg: ModelConfig = field(default_factory=ModelConfig)
    #: Retries, how tool calls end a run, the run and tool timeouts.
    runtime_cfg: RuntimeConfig = field(default_factory=RuntimeConfig)
    #: The budget of one run, enforced by pydantic-ai inside it.
    run_usage_limits: RunUsageLimits = field(default_factory=RunUsageLimits)
    #: The budget of the runner's whole life, checked before each run.
    agent_usage_limits: AgentUsageLimits = field(default_factory=AgentUsageLimits)
    #: How the history is shortened.
    compaction_cfg: CompactionConfig = field(default_factory=CompactionConfig)

    # ---------------------------------------------------------------- prompt and tools
    #: The pieces of the system block, rendered once when the runner is built.
    system_prompts: Sequence[SystemPrompt] = ()
    #: Function tools: plain functions or bound methods keep the runner's agents shared.
    tools: Sequence[Tool[Any] | Callable[..., Any]] = ()
    #: Toolsets of its own, which give the runner pydantic-ai agents of its own.
    toolsets: Sequence[AbstractToolset[Any]] = ()
    #: Capabilities of its own; any that is not a `SharedCapability` gives the runner
    #: pydantic-ai agents of its own (see `retinue.llm.run_agents`).
    capabilities: Sequence[AgentCapability[Any]] = ()
    #: What the runner's owner does inside each run (`RunHooks`), in this order.
    run_hooks: Sequence[RunHooks] = ()
    #: What the runner's owner does around each function tool call (`ToolHooks`).
    tool_hooks: Sequence[ToolHooks] = ()

    # ---------------------------------------------------------------- wiring
    #: Receives every event on the calling thread; it should not block.
    event_sink: EventSink | None = None
    #: The model, already built (None: built from `model_cfg`).
    model: Model | None = None
    #: The team's shared budget, asked before each run and charged with its usage.
    team_budget: TeamBudget | None = None
    #: The name its pydantic-ai agents carry, which runners of one shape share them under
    #: (None: the runner's own name).
    label: str | None = None

    def __post_init__(self) -> None:
        for name in (
            "system_prompts",
            "tools",
            "toolsets",
            "capabilities",
            "run_hooks",
            "tool_hooks",
        ):
            object.__setattr__(self, name, tuple(getattr(self, name)))
