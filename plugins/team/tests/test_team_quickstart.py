"""The spec's Quick Start, with the plugin installed: the manager hires a Developer by role."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models.function import AgentInfo
from retinue.testing import TeamHarness, incoming, scripted_card, send


@pytest.fixture
def retinue_plugin_manager() -> Any:
    """None: this team discovers the installed plugins, so the entry point is what is tested."""
    return None


def manager(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """The Quick Start's manager: delegate to a Developer, then report to the person."""
    got = incoming(messages)
    if got.sender == "@Human":
        return send(info, ("Developer", "request", "Implement the sprint plan."))
    if got.sender == "@Developer":
        return send(info, ("@Human", "response", f"Sprint planned. {got.content}"))
    return send(info)


def developer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """The Quick Start's developer: answer the manager."""
    return send(info, ("@Manager", "response", "Implemented the sprint plan."))


def test_quick_start_hires_a_bare_role_and_the_answer_comes_back(
    retinue_team: TeamHarness,
) -> None:
    team = retinue_team
    team.register(scripted_card("Developer", f"{__name__}:developer"))
    manager_address = team.add(
        scripted_card(
            "Manager",
            f"{__name__}:manager",
            description="Project manager who coordinates specialists",
            skills=["coordination", "delegation"],
            routes_to=["Developer", "QA"],
        )
    )

    team.say(manager_address, "Plan the next sprint.")
    team.wait_idle(20)

    assert [m.content for m in team.received_by("@Human")] == [
        "Sprint planned. Implemented the sprint plan."
    ]
    members = {m.address.name: m for m in team.orchestrator_proxy.get_team()}
    assert set(members) == {"@Human", "@Manager", "@Developer"}
    assert members["@Developer"].address.role == "Developer"
    assert members["@Developer"].parent == manager_address  # hired by the manager
    assert len(team.model_requests("@Developer")) == 1
