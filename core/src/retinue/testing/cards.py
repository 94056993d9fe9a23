"""`scripted_card` and `PingTool`: a role for a test, played on a scripted model.

Tests of a card or a plugin need agents that are plain `BaseAgent`s in every way but their
model; this builds the `AgentCard` for one in a line, so the test shows what matters to it
(the role's routes, its cards, its script) and nothing else.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, ClassVar

from retinue.agent.agent import BaseAgent
from retinue.agent.config import AgentConfig
from retinue.llm.config import ModelConfig
from retinue.llm.prompt import PromptTemplate
from retinue.team.card import AgentCard
from retinue.testing.directives import FOLLOW
from retinue.tools.card import ToolCard


def scripted_card(
    role: str,
    script: str = FOLLOW,
    *,
    agent_class: type[Any] | str = BaseAgent,
    description: str = "",
    skills: Sequence[str] = (),
    routes_to: Sequence[str] = (),
    tools: Sequence[ToolCard | str] = (),
) -> AgentCard:
    """An `AgentCard` for `@<role>`, whose model is the function at `script` (`module:name`).

    The default script is `follow`, which obeys the directives in the message it handles.
    The description defaults to "Does the work of a <role>", so role profiles read naturally.
    """
    return AgentCard(
        description=description or f"Does the work of a {role}",
        skills=list(skills),
        agent_class=agent_class,
        config=AgentConfig(
            name=f"@{role}",
            role=role,
            prompt=PromptTemplate(template=f"You are the team's {role}."),
            model_cfg=ModelConfig(provider="function", model=script),
            tools=list(tools),
        ),
        routes_to=list(routes_to),
    )


class PingTool(ToolCard):
    """A card with one harmless tool (`ping`), so a scripted run can take steps.

    Steps are what cancellation, the arrival notice and the run tier act on; a test that
    needs them should not have to write a card first.
    """

    name: ClassVar[str] = "ping"

    def get_tools(self) -> Sequence[Callable[..., Any]]:
        return [self.ping]

    def ping(self) -> str:
        """Answer pong."""
        return "pong"
