"""Cards and card builders shared by the agent tests."""

from __future__ import annotations

import threading
from typing import Any

from retinue import (
    AgentCard,
    AgentConfig,
    AgentUsageLimits,
    BaseAgent,
    ModelConfig,
    PromptTemplate,
    RunUsageLimits,
    StructuredOutput,
)


def card(
    role: str,
    script: str,
    *,
    routes_to: list[str] | None = None,
    agent_class: str = "retinue.BaseAgent",
    run_limits: RunUsageLimits | None = None,
    agent_limits: AgentUsageLimits | None = None,
    tools: list[Any] | None = None,
) -> AgentCard:
    """A card whose agent runs the scripted model `agent_scripts:<script>`."""
    return AgentCard(
        description=f"{role} of the team",
        skills=[role.lower()],
        agent_class=agent_class,
        config=AgentConfig(
            name=f"@{role}",
            role=role,
            prompt=PromptTemplate(template=f"You are the {role}."),
            model_cfg=ModelConfig(provider="function", model=f"agent_scripts:{script}"),
            run_usage_limits=run_limits or RunUsageLimits(),
            agent_usage_limits=agent_limits or AgentUsageLimits(),
            tools=tools or [],
        ),
        routes_to=routes_to or [],
    )


class GatedRouterAgent(BaseAgent):
    """Pauses between the end of its run and the routing of the output."""

    routing = threading.Event()
    release = threading.Event()

    def _route_output(self, output: StructuredOutput) -> bool:
        GatedRouterAgent.routing.set()
        GatedRouterAgent.release.wait(10)
        return super()._route_output(output)
