"""The model's tools: `hire_members` and `fire_members`, in real runs."""

from __future__ import annotations

import json

import team_scripted
from retinue_team import TeamTool
from team_scripted import Team, role_card


def _call(tool: str, **args: object) -> str:
    return f"call {tool} {json.dumps(args)}"


def test_hire_members_hires_each_role_and_explains_a_refusal(team: Team) -> None:
    team.register(role_card("Manager"), role_card("Developer"), role_card("QA"))
    manager = team.start_agent("Manager")

    team.say(manager, _call("hire_members", roles=["Developer", "QA", "Astronaut"]))
    team.system.wait_idle(20)

    assert team_scripted.TOOL_RESULTS["@Manager"] == [
        "Hired @Developer as Developer.\n"
        "Hired @QA as QA.\n"
        "Could not hire 'Astronaut': no role 'Astronaut' is registered; "
        "registered roles: Developer, Manager, QA"
    ]
    assert set(team.roster()) == {"@Human", "@Manager", "@Developer", "@QA"}


def test_fire_members_fires_agents_and_refuses_people_and_strangers(team: Team) -> None:
    team.register(role_card("Manager"), role_card("Developer"))
    manager = team.start_agent("Manager")
    team.start_agent("Developer")

    team.say(manager, _call("fire_members", names=["@Developer", "@Human", "Nobody"]))
    team.system.wait_idle(20)

    assert team_scripted.TOOL_RESULTS["@Manager"] == [
        "Fired @Developer (Developer); it has left the team.\n"
        "Could not fire '@Human': @Human is a person, not an agent, and cannot be fired\n"
        "Could not fire 'Nobody': no member is called @Nobody; "
        "the members are: @Human, @Manager"
    ]
    assert set(team.roster()) == {"@Human", "@Manager"}


def test_a_member_that_fires_itself_finishes_its_turn_and_leaves(team: Team) -> None:
    team.register(role_card("Manager"))
    manager = team.start_agent("Manager")
    stops = team.watch_stops()

    team.say(
        manager,
        _call("fire_members", names=["@Manager"]) + "\nsend @Human response: Goodbye.",
    )
    stops.wait_for("@Manager")
    team.system.wait_idle(20)

    assert team_scripted.TOOL_RESULTS["@Manager"] == [
        "@Manager fired itself and leaves the team once its current work is done."
    ]
    assert team_scripted.inbox() == ["Goodbye."]  # the turn was finished, not cut off
    assert not manager.is_alive()
    assert set(team.roster()) == {"@Human"}
    # The fixture then checks that the system shuts down within its timeout.


def test_the_member_cap_refuses_a_hire_by_the_model(team: Team) -> None:
    team.register(role_card("Lead", tools=[TeamTool(max_members=2)]), role_card("Developer"))
    lead = team.start_agent("Lead")

    team.say(lead, _call("hire_members", roles=["Developer", "Developer"]))
    team.system.wait_idle(20)

    assert team_scripted.TOOL_RESULTS["@Lead"] == [
        "Hired @Developer as Developer.\n"
        "Could not hire 'Developer': the team is full: it has 2 agents and allows at most 2 "
        "(fire a member first)"
    ]


def test_a_bare_role_beyond_the_cap_is_not_delivered(team: Team) -> None:
    team.register(role_card("Lead", tools=[TeamTool(max_members=1)]), role_card("Developer"))
    lead = team.start_agent("Lead")

    team.say(lead, "send Developer request: Build it.")
    team.system.wait_idle(20)

    assert set(team.roster()) == {"@Human", "@Lead"}
