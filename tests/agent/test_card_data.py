"""Cards and configs are plain data: free metadata, skills, equal by value after a round trip."""

from __future__ import annotations

import json
from typing import Any, ClassVar

import pytest
from agent_cards import card
from pydantic import Field
from retinue import (
    AgentCard,
    AgentConfig,
    BaseAgent,
    BaseConfig,
    ConfigError,
    HumanProxy,
    ModelConfig,
    PromptTemplate,
    RunUsageLimits,
    ToolCard,
)
from retinue.testing import PingTool, TeamHarness


class BudgetTool(ToolCard):
    """A card with a field, to see a configured card survive the trip."""

    name: ClassVar[str] = "budget"

    ceiling: int = 10
    labels: list[str] = Field(default_factory=list)


def full_card() -> AgentCard:
    return AgentCard(
        description="Writes and reviews code",
        skills=["Python", "testing"],
        agent_class="retinue.BaseAgent",
        config=AgentConfig(
            name="@Developer",
            role="Developer",
            prompt=PromptTemplate(template="You write {lang}.", params={"lang": "Python"}),
            model_cfg=ModelConfig(provider="function", model="agent_scripts:developer"),
            run_usage_limits=RunUsageLimits(run_request_limit=9),
            tools=[PingTool(), BudgetTool(ceiling=3, labels=["a"]), "team"],
        ),
        routes_to=["Reviewer"],
        metadata={"icon": "wrench", "cost_centre": 42, "tags": ["core"]},
    )


def test_a_card_carries_free_metadata() -> None:
    original = full_card()
    assert original.metadata["icon"] == "wrench"
    assert AgentCard(agent_class=BaseAgent, config=AgentConfig()).metadata == {}
    assert original.model_dump()["metadata"] == {
        "icon": "wrench",
        "cost_centre": 42,
        "tags": ["core"],
    }


def test_has_skill_ignores_case_and_spaces() -> None:
    original = full_card()
    assert original.has_skill("python")
    assert original.has_skill(" Testing ")
    assert not original.has_skill("java")


@pytest.mark.parametrize("mode", ["python", "json"])
def test_a_card_round_trips_and_compares_equal(mode: str) -> None:
    original = full_card()
    if mode == "json":
        copy = AgentCard.model_validate_json(original.model_dump_json())
    else:
        copy = AgentCard.model_validate(original.model_dump())
    assert copy == original
    assert type(copy.config) is AgentConfig
    assert copy.agent_class is BaseAgent
    assert copy.config.tools[1] == BudgetTool(ceiling=3, labels=["a"])


def test_a_saved_card_is_plain_json() -> None:
    saved = json.loads(full_card().model_dump_json())
    assert saved["agent_class"] == "retinue.BaseAgent"  # the path it was given
    assert saved["config"]["tools"][1] == {
        "card": "budget",
        "card_class": f"{__name__}.BudgetTool",
        "ceiling": 3,
        "labels": ["a"],
    }
    assert saved["config"]["tools"][2] == "team"


class OwnAgent(BaseAgent):
    """An agent class of the user's own, exported from no package."""


@pytest.mark.parametrize(
    ("agent_class", "written"),
    [
        ("retinue.agent.agent.BaseAgent", "retinue.agent.agent.BaseAgent"),  # as given
        ("retinue.agent.agent:BaseAgent", "retinue.agent.agent:BaseAgent"),
        (BaseAgent, "retinue.BaseAgent"),  # a class: its public path
        (HumanProxy, "retinue.HumanProxy"),
        (OwnAgent, f"{__name__}.OwnAgent"),  # on no package's face: module.Qualname
    ],
)
def test_a_card_writes_its_class_as_given_or_by_its_public_path(
    agent_class: Any, written: str
) -> None:
    config = AgentConfig() if agent_class is not HumanProxy else BaseConfig(name="@H", role="H")
    original = AgentCard(agent_class=agent_class, config=config)

    assert original.model_dump()["agent_class"] == written
    assert json.loads(original.model_dump_json())["agent_class"] == written
    for copy in (
        AgentCard.model_validate(original.model_dump()),
        AgentCard.model_validate_json(original.model_dump_json()),
        original.model_copy(deep=True),
    ):
        assert copy == original
        assert copy.model_dump()["agent_class"] == written
        assert copy.get_agent_class() is original.get_agent_class()


def test_configs_round_trip_and_compare_equal() -> None:
    config = full_card().config
    assert AgentConfig.model_validate(config.model_dump()) == config
    assert AgentConfig.model_validate_json(config.model_dump_json()) == config
    base = BaseConfig(name="@Human", role="Human")
    assert BaseConfig.model_validate(base.model_dump()) == base


def test_cards_compare_by_value_not_by_binding() -> None:
    assert PingTool() == PingTool()
    assert BudgetTool(ceiling=3) == BudgetTool(ceiling=3)
    assert BudgetTool(ceiling=3) != BudgetTool(ceiling=4)
    assert AgentConfig(tools=[PingTool()]) == AgentConfig(tools=[PingTool()])


def test_a_config_given_as_data_is_validated_as_the_class_config() -> None:
    agent_card = AgentCard(
        agent_class=BaseAgent,
        config={"name": "@Dev", "role": "Developer", "model_cfg": {"provider": "test"}},
    )
    assert type(agent_card.config) is AgentConfig
    assert agent_card.config.model_cfg == ModelConfig(provider="test")

    person = AgentCard(agent_class=HumanProxy, config={"name": "@Human", "role": "Human"})
    assert type(person.config) is BaseConfig


def test_a_saved_card_whose_class_is_gone_is_one_line() -> None:
    saved: dict[str, Any] = full_card().model_dump()
    saved["config"]["tools"][1]["card_class"] = "no_such_module.BudgetTool"
    with pytest.raises(ConfigError) as exc:
        AgentCard.model_validate(saved)
    assert str(exc.value).startswith(
        "AgentCard: config.tools[1]: cannot import 'no_such_module.BudgetTool'"
    )


def test_a_card_read_back_starts_a_working_agent(retinue_team: TeamHarness) -> None:
    team = retinue_team
    written = card("Developer", "developer", tools=[PingTool()])
    worker = team.add(AgentCard.model_validate_json(written.model_dump_json()))
    team.say(worker, "plan please")
    team.wait_idle()
    assert [m.content for m in team.received_by("@Human")] == ["plan ready"]
