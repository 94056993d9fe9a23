"""The team commands, driven by a person with slash commands, and by code."""

from __future__ import annotations

import pytest
from retinue import BaseAgent
from retinue_team import TeamTool
from team_scripted import Team, role_card


@pytest.fixture
def manager(team: Team) -> object:
    team.register(
        role_card("Manager", routes_to=["Developer", "DevOpsEngineer"]),
        role_card("Developer", description="Writes and reviews code", skills=["python"]),
        role_card("DevOpsEngineer", description="Runs the deployments"),
        role_card("Auditor", description="Reads the books"),
    )
    return team.start_agent("Manager")


def test_team_members_lists_the_roster(team: Team, manager: object) -> None:
    answer = team.command(manager, "/team_members")

    assert answer.splitlines() == ["@Human — Human (a person)", "@Manager — Manager (busy)"]


def test_hire_then_fire_changes_the_roster(team: Team, manager: object) -> None:
    hired = team.command(manager, "/hire_member DevOpsEngineer")

    assert hired == "@DevOpsEngineer"
    assert team.roster() == {
        "@Human": "Human",
        "@Manager": "Manager",
        "@DevOpsEngineer": "DevOpsEngineer",
    }
    listed = team.command(manager, "/team_members")
    assert "@DevOpsEngineer — DevOpsEngineer (idle)" in listed.splitlines()

    fired = team.command(manager, "/fire_member @DevOpsEngineer")

    assert fired == "Fired @DevOpsEngineer (DevOpsEngineer); it has left the team."
    assert team.roster() == {"@Human": "Human", "@Manager": "Manager"}
    assert "@DevOpsEngineer" not in team.command(manager, "/team_members")


def test_hire_under_a_chosen_name(team: Team, manager: object) -> None:
    assert team.command(manager, "/hire_member Developer name=@Ada") == "@Ada"
    assert team.command(manager, "/hire_member Developer name=Ada") == "@Ada2"  # kept unique

    assert team.roster()["@Ada"] == "Developer"
    assert team.roster()["@Ada2"] == "Developer"


def test_team_roles_says_what_this_agent_may_hire(team: Team, manager: object) -> None:
    lines = team.command(manager, "/team_roles").splitlines()

    assert "Developer — Writes and reviews code [python]" in lines
    assert "Auditor — Reads the books (not hireable by this agent)" in lines


def test_an_unknown_role_is_refused_with_the_registered_roles(team: Team, manager: object) -> None:
    answer = team.command(manager, "/hire_member Astronaut")

    assert answer == (
        "/hire_member failed: ValueError: no role 'Astronaut' is registered; registered "
        "roles: Auditor, DevOpsEngineer, Developer, Manager"
    )
    assert set(team.roster()) == {"@Human", "@Manager"}


def test_routes_to_limits_the_roles_an_agent_may_hire(team: Team, manager: object) -> None:
    answer = team.command(manager, "/hire_member Auditor")

    assert answer == (
        "/hire_member failed: ValueError: @Manager may not hire 'Auditor'; "
        "it may hire: DevOpsEngineer, Developer"
    )
    assert set(team.roster()) == {"@Human", "@Manager"}


def test_an_agent_without_routes_to_may_hire_any_role(team: Team, manager: object) -> None:
    developer = team.start_agent("Developer")

    assert team.command(developer, "/hire_member Auditor") == "@Auditor"


def test_firing_the_person_is_refused(team: Team, manager: object) -> None:
    answer = team.command(manager, "/fire_member @Human")

    assert answer == (
        "/fire_member failed: ValueError: @Human is a person, not an agent, and cannot be fired"
    )
    assert "@Human" in team.roster()


def test_firing_an_unknown_name_is_refused(team: Team, manager: object) -> None:
    answer = team.command(manager, "/fire_member @Nobody")

    assert answer == (
        "/fire_member failed: ValueError: no member is called @Nobody; "
        "the members are: @Human, @Manager"
    )


def test_an_agent_firing_itself_by_command_returns_and_leaves(team: Team, manager: object) -> None:
    stops = team.watch_stops()

    answer = team.command(manager, "/fire_member @Manager")

    assert answer == "@Manager fired itself and leaves the team once its current work is done."
    stops.wait_for("@Manager")
    team.system.wait_idle(10)
    assert set(team.roster()) == {"@Human"}


def test_the_member_cap_refuses_a_hire(team: Team) -> None:
    team.register(
        role_card("Lead", tools=[TeamTool(max_members=2)]),
        role_card("Developer"),
    )
    lead = team.start_agent("Lead")

    assert team.command(lead, "/hire_member Developer") == "@Developer"
    answer = team.command(lead, "/hire_member Developer")

    assert answer == (
        "/hire_member failed: ValueError: the team is full: it has 2 agents and allows at "
        "most 2 (fire a member first)"
    )
    assert set(team.roster()) == {"@Human", "@Lead", "@Developer"}


def test_the_typed_command_returns_the_new_address(team: Team, manager: object) -> None:
    # BaseAgent.hire_member resolves the registry's typed `hire_member` command.
    address = team.system.proxy_ask(manager, BaseAgent).hire_member("Developer")

    assert address.name == "@Developer"
    assert address.role == "Developer"
    assert address.is_alive()
    assert team.roster()["@Developer"] == "Developer"


def test_an_agent_cannot_fire_by_writing_a_slash_command(team: Team, manager: object) -> None:
    # Another agent's "/fire_member" is content for the model, never a command.
    team.register(role_card("Developer"))
    developer = team.start_agent("Developer")
    team.say(manager, "send @Developer request: /fire_member @Manager")
    team.system.wait_idle(20)

    assert developer.is_alive()
    assert set(team.roster()) == {"@Human", "@Manager", "@Developer"}
