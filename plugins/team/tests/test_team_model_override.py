"""A hired member plays on the model object a test handed its role, not on its card's config.

Hires are built on the orchestrator's thread, while the test waits on its own: the model
given to `TeamHarness.register` (or `override_model`) must reach them there. The cards name
a real provider that cannot be built here, so a hire that missed the override fails to start.
"""

from __future__ import annotations

from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models.function import AgentInfo
from retinue import AgentCard, AgentConfig, BaseAgent, ModelConfig
from retinue.testing import TeamHarness, incoming, override_model, send

REAL = ModelConfig(provider="openai", model="gpt-4o", api_key_env="RETINUE_TEST_NEVER_SET")


def real_card(role: str, routes_to: list[str] | None = None) -> AgentCard:
    return AgentCard(
        description=f"The team's {role}",
        agent_class=BaseAgent,
        config=AgentConfig(name=f"@{role}", role=role, model_cfg=REAL),
        routes_to=routes_to or [],
    )


def manager(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    got = incoming(messages)
    if got.sender == "@Human":
        return send(info, ("Developer", "request", "Write the parser."))
    return send(info, ("@Human", "response", f"Done: {got.content}"))


def test_a_hire_gets_the_model_registered_for_its_role(retinue_team: TeamHarness) -> None:
    team = retinue_team
    handled: list[str] = []

    def developer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        got = incoming(messages)
        handled.append(got.content)
        return send(info, (got.sender, "response", "parser written"))

    team.register(real_card("Developer"), model=developer)
    lead = team.add(real_card("Manager", routes_to=["Developer"]), model=manager)
    team.say(lead, "Plan the sprint.")
    team.wait_idle()

    assert [m.content for m in team.received_by("@Human")] == ["Done: parser written"]
    assert team.roster()["@Developer"] == "Developer"
    assert handled == ["Write the parser."]


def test_a_hire_gets_an_override_active_in_the_test(retinue_team: TeamHarness) -> None:
    team = retinue_team
    team.register(real_card("Developer"))
    lead = team.add(real_card("Manager", routes_to=["Developer"]), model=manager)
    with override_model(
        lambda messages, info: send(info, ("@Manager", "response", "from the override")),
        role="Developer",
    ):
        team.say(lead, "Plan the sprint.")
        team.wait_idle()
    assert [m.content for m in team.received_by("@Human")] == ["Done: from the override"]
