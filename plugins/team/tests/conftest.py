"""The team plugin's tests run on `retinue.testing`: `retinue_team` sees this plugin alone."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from retinue import ActorAddress, StopMessage
from retinue.plugins import get_plugin_manager
from retinue.testing import TeamHarness, scripted_card
from retinue_team import TeamTool, hooks


@pytest.fixture
def retinue_plugin_manager() -> Any:
    """Exactly this plugin's cards, whatever else is installed beside it."""
    return get_plugin_manager(autoload=False, plugins=[hooks])


@pytest.fixture
def manager(retinue_team: TeamHarness) -> ActorAddress:
    """Starts a @Manager who may hire a Developer or a DevOpsEngineer (not an Auditor)."""
    retinue_team.register(
        scripted_card("Manager", routes_to=["Developer", "DevOpsEngineer"]),
        scripted_card("Developer", description="Writes and reviews code", skills=["python"]),
        scripted_card("DevOpsEngineer", description="Runs the deployments"),
        scripted_card("Auditor", description="Reads the books"),
    )
    return retinue_team.start("Manager")


@pytest.fixture
def capped_lead(retinue_team: TeamHarness) -> Callable[[int], ActorAddress]:
    """Starts a @Lead whose team allows `max_members` agents, with a Developer role to hire."""

    def start(max_members: int) -> ActorAddress:
        retinue_team.register(
            scripted_card("Lead", tools=[TeamTool(max_members=max_members)]),
            scripted_card("Developer"),
        )
        return retinue_team.start("Lead")

    return start


@pytest.fixture
def fired_itself(retinue_team: TeamHarness) -> Callable[[ActorAddress, str], None]:
    """Checks that `member` fired itself, as `answer` says, and has left the person alone."""

    def check(member: ActorAddress, answer: str) -> None:
        assert answer == (
            f"{member.name} fired itself and leaves the team once its current work is done."
        )
        assert [m.sender.name for m in retinue_team.of(StopMessage)] == [member.name]
        assert not member.is_alive()
        assert set(retinue_team.roster()) == {"@Human"}

    return check
