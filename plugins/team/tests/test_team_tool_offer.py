"""Hiring and firing are offered only to a member that can use them: every schema is paid."""

from __future__ import annotations

from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models.function import AgentInfo
from retinue import ActorAddress
from retinue.testing import TeamHarness, call_tool, incoming, scripted_card, send


class Offered:
    """A scripted manager that notes the tools each of its requests offers."""

    def __init__(self) -> None:
        self.offers: list[set[str]] = []

    def manager(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        self.offers.append({tool.name for tool in info.function_tools})
        if len(self.offers) == 1:
            return call_tool("hire_members", {"roles": ["Developer"]})
        return send(info)

    def worker(self, messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        self.offers.append({tool.name for tool in info.function_tools})
        return send(info, (incoming(messages).sender, "response", "done"))


def staffed(team: TeamHarness) -> tuple[Offered, ActorAddress]:
    """A manager whose first turn hired a @Developer; what it was offered, and its address."""
    seen = Offered()
    team.register(scripted_card("Developer"))
    manager = team.add(scripted_card("Manager", routes_to=["Developer"]), model=seen.manager)
    team.say(manager, "staff the project")
    team.wait_idle(20)
    return seen, manager


def test_a_member_that_hired_nobody_is_offered_no_firing_tool(retinue_team: TeamHarness) -> None:
    team = retinue_team
    seen, _ = staffed(team)

    before_hiring, after_hiring = seen.offers
    assert "hire_members" in before_hiring and "fire_members" not in before_hiring
    assert "fire_members" in after_hiring  # it hired @Developer, who is still in the team
    assert "@Developer" in team.roster()


def test_a_member_whose_role_names_no_roles_is_offered_no_hiring(
    retinue_team: TeamHarness,
) -> None:
    team = retinue_team
    seen = Offered()
    worker = team.add(scripted_card("Worker"), model=seen.worker)

    team.say(worker, "do it")
    team.wait_idle(20)

    (offered,) = seen.offers
    assert not offered & {"hire_members", "fire_members"}
    assert [m.content for m in team.received_by("@Human")] == ["done"]


def test_firing_is_offered_no_longer_once_the_hired_member_has_left(
    retinue_team: TeamHarness,
) -> None:
    team = retinue_team
    seen, manager = staffed(team)
    assert team.command(manager, "/fire_member @Developer").startswith("Fired @Developer")

    seen.offers.clear()
    team.say(manager, "staff it again", intent="notification")
    team.wait_idle(20)

    assert "fire_members" not in seen.offers[0]
