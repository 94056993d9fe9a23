"""The quick-start team of the README (`examples/quickstart.py`), built for a `TeamHarness`.

Its scripted models are the example's own functions, imported by path (`quickstart:manager`),
so the team traced here is the one a reader runs.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from retinue import ActorAddress, AgentCard, AgentConfig, BaseAgent, ModelConfig, PromptTemplate
from retinue.testing import TeamHarness

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
if str(EXAMPLES) not in sys.path:
    sys.path.insert(0, str(EXAMPLES))

REQUEST = "Plan the next sprint."


def model(function: str) -> ModelConfig:
    return ModelConfig(provider="function", model=f"quickstart:{function}")


def quickstart_cards(tools: dict[str, list[Any]] | None = None) -> list[AgentCard]:
    """The Manager (who hires a Developer by role) and the Developer, as the example has them;
    `tools` adds cards to a role (`{"Developer": [TracingTool(enabled=False)]}`)."""
    tools = tools or {}

    def card(
        role: str, description: str, routes_to: tuple[str, ...] = (), **settings: Any
    ) -> AgentCard:
        config = AgentConfig(
            name=f"@{role}",
            role=role,
            model_cfg=model(role.lower()),
            tools=tools.get(role, []),
            **settings,
        )
        return AgentCard(
            description=description,
            agent_class=BaseAgent,
            config=config,
            routes_to=list(routes_to),
        )

    prompt = PromptTemplate(template="You are a project manager. Delegate the work.")
    return [
        card(
            "Manager",
            "Project manager who delegates to specialists",
            routes_to=("Developer",),
            prompt=prompt,
        ),
        card("Developer", "Plans and writes code"),
    ]


def start_quickstart(team: TeamHarness, tools: dict[str, list[Any]] | None = None) -> ActorAddress:
    """Register both roles and start the Manager; the Developer is hired when asked for."""
    team.register(*quickstart_cards(tools))
    return team.start("Manager")
