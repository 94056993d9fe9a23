"""The spec's Quick Start flow on scripted models: human, manager, developer and back."""

from __future__ import annotations

from typing import Any

import pytest
from agent_cards import card
from retinue import AgentMessage, BaseAgent
from retinue.testing import TeamHarness


def test_human_manager_developer_and_back(retinue_team: TeamHarness) -> None:
    team = retinue_team
    team.register(card("Developer", "developer"))
    developer = team.add(card("Developer", "developer"))
    manager = team.add(card("Manager", "manager_to_member", routes_to=["Developer"]))
    team.say(manager, "Plan the next sprint.")
    team.wait_idle()
    assert developer.name == "@Developer"
    assert team.transcript() == [
        ("@Human", "@Manager", "request", "Plan the next sprint."),
        ("@Manager", "@Developer", "request", "Write the sprint plan"),
        ("@Developer", "@Manager", "response", "plan ready"),
        ("@Manager", "@Human", "response", "Sprint planned: plan ready"),
    ]


def test_hiring_without_team_plugin_names_it(retinue_team: TeamHarness) -> None:
    pytest.importorskip("retinue", reason="kernel always present")
    team = retinue_team
    if "team" in _installed_cards(team):
        pytest.skip("retinue-team is installed here")
    manager = team.add(card("Manager", "manager"))
    with pytest.raises(RuntimeError, match="retinue-team"):
        team.proxy(manager).hire_member("Developer")


def _installed_cards(team: TeamHarness) -> dict[str, Any]:
    from retinue.agent.plugin_access import plugin_manager_for
    from retinue.plugins import collect_card_classes

    return collect_card_classes(plugin_manager_for(team.system))


def test_agent_message_defaults_to_request() -> None:
    assert AgentMessage(content="x").type == "request"
    assert BaseAgent.__name__ == "BaseAgent"


def test_bad_agent_config_fails_create_actor_in_one_line(retinue_team: TeamHarness) -> None:
    from retinue import AgentConfig, ModelConfig, UnknownToolCardError

    with pytest.raises(UnknownToolCardError) as info:
        retinue_team.orchestrator_proxy.createActor(
            BaseAgent, AgentConfig(name="@X", role="X", tools=["no_such_card"])
        )
    assert "no_such_card" in str(info.value) and "\n" not in str(info.value)
    with pytest.raises(ValueError, match="no_such_module"):
        retinue_team.orchestrator_proxy.createActor(
            BaseAgent,
            AgentConfig(
                name="@Y",
                role="Y",
                model_cfg=ModelConfig(provider="function", model="no_such_module:fn"),
            ),
        )
    assert [m.name for m in retinue_team.orchestrator_proxy.get_team_members()] == ["@Human"]
