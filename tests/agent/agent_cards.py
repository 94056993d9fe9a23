"""Cards and helpers shared by the agent tests."""

from __future__ import annotations

from typing import Any

from retinue import (
    AgentCard,
    AgentConfig,
    AgentUsageLimits,
    ModelConfig,
    PromptTemplate,
    RunUsageLimits,
)
from retinue.testing import TeamHarness, last_prompt


def card(
    role: str,
    script: str = "unscripted",
    *,
    routes_to: list[str] | None = None,
    agent_class: type[Any] | str = "retinue.BaseAgent",
    run_limits: RunUsageLimits | None = None,
    agent_limits: AgentUsageLimits | None = None,
    tools: list[Any] | None = None,
) -> AgentCard:
    """A card whose agent runs the scripted model `agent_scripts:<script>`.

    A test that hands the agent a model of its own (`team.add(card(...), model=...)`)
    leaves `script` out.
    """
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


def prompts(team: TeamHarness, name: str) -> list[str]:
    """The latest prompt of every request `name`'s model answered, oldest first."""
    return [last_prompt(request) for request in team.model_requests(name)]
