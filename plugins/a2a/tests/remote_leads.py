"""The scripted @Lead of a team whose @Reviewer is a remote A2A agent, named by a model
string (`remote_leads:lead`) so that a resumed team runs it again."""

from __future__ import annotations

from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models.function import AgentInfo
from retinue import AgentCard, AgentConfig, ModelConfig
from retinue.testing import incoming, send


def lead(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """The person's request goes to @Reviewer, and the person's answer to a question the
    reviewer asked; the reviewer's question goes to the person, its answer too."""
    got = incoming(messages)
    if got.sender == "@Human":
        intent = "request" if got.intent == "request" else "response"
        return send(info, ("@Reviewer", intent, got.content))
    if got.intent == "request":
        return send(info, ("@Human", "request", f"{got.sender} asks: {got.content}"))
    return send(info, ("@Human", "response", f"{got.sender} said: {got.content}"))


LEAD = AgentCard(
    description="Asks the reviewer",
    agent_class="retinue.BaseAgent",
    config=AgentConfig(
        name="@Lead",
        role="Lead",
        model_cfg=ModelConfig(provider="function", model="remote_leads:lead"),
    ),
)
