"""One runner's pydantic-ai agents, by output type: the shared ones, or its own.

A `ReactAgent` asks for the agent of each run's output type here. Without toolsets or
capabilities of its own that are not `SharedCapability`, it gets the agent shared by every
runner of the same shape and label (`retinue.llm.run_agents`), and its runs then pass its
system block as their instructions; otherwise an agent is built for it once.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from pydantic_ai import Agent, AgentCapability, Tool
from pydantic_ai.models import Model
from pydantic_ai.settings import ModelSettings
from pydantic_ai.toolsets import AbstractToolset

from retinue.llm.config import RuntimeConfig
from retinue.llm.run_agents import build_run_agent, output_key, shared_run_agent, shares_agents


class RunnerAgents:
    """The agents one runner built or shares so far, by output type (its thread only)."""

    def __init__(
        self,
        model: Model,
        *,
        name: str,
        label: str,
        system_block: str,
        tools: Sequence[Tool[Any] | Callable[..., Any]],
        toolsets: Sequence[AbstractToolset[Any]],
        capabilities: Sequence[AgentCapability[Any]],
        runtime: RuntimeConfig,
        settings: ModelSettings,
    ) -> None:
        self._model = model
        self._name = name
        self._label = label
        self._system_block = system_block
        self._tools = list(tools)
        self._toolsets = list(toolsets)
        #: Capabilities or toolsets of its own make a runner's pydantic-ai agents its own.
        self._own_capabilities: list[AgentCapability[Any]] = list(capabilities)
        self._runtime = runtime
        self._settings = settings
        #: The agents so far, by `output_key` of their output type.
        self.by_output: dict[object, Agent[Any, Any]] = {}
        #: Whether its agents are shared ones: runs then carry its instructions and tools.
        self.shares = False

    def agent_for(self, output_type: Any) -> Agent[Any, Any]:
        """The pydantic-ai agent for this output type: the shared one for this runner's
        shape, or (with toolsets or capabilities of its own that are not `SharedCapability`)
        one built for it once."""
        key = output_key(output_type)
        agent = self.by_output.get(key)
        if agent is not None:
            return agent
        own = self._own_capabilities
        if not self._toolsets and shares_agents(own):
            agent = shared_run_agent(
                self._model,
                output_type,
                label=self._label,
                tools=self._tools,
                runtime=self._runtime,
                settings=self._settings,
                capabilities=own,
            )
        if agent is None:
            agent = build_run_agent(
                self._model,
                output_type,
                name=self._name,
                instructions=self._system_block or None,
                tools=self._tools,
                toolsets=self._toolsets,
                capabilities=self._own_capabilities,
                runtime=self._runtime,
                settings=self._settings,
            )
        else:
            self.shares = True
        self.by_output[key] = agent
        return agent

    @property
    def run_instructions(self) -> str | None:
        """What a run passes as its instructions: the system block, when the agent is shared."""
        return (self._system_block or None) if self.shares else None
