"""The model's tools: `hire_members` and `fire_members`, in real runs."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from retinue import ActorAddress
from retinue.testing import TeamHarness, call_directive, script, scripted_card, send_directive


@pytest.mark.parametrize(
    ("started", "directive", "answer", "roster"),
    [
        (
            [],
            call_directive("hire_members", {"roles": ["Developer", "QA", "Astronaut"]}),
            "Hired @Developer as Developer.\n"
            "Hired @QA as QA.\n"
            "Could not hire 'Astronaut': no role 'Astronaut' is registered; "
            "registered roles: Developer, Manager, QA",
            {"@Human", "@Manager", "@Developer", "@QA"},
        ),
        (
            ["Developer"],
            call_directive("fire_members", {"names": ["@Developer", "@Human", "Nobody"]}),
            "Fired @Developer (Developer); it has left the team.\n"
            "Could not fire '@Human': @Human is a person, not an agent, and cannot be fired\n"
            "Could not fire 'Nobody': no member is called @Nobody; "
            "the members are: @Human, @Manager",
            {"@Human", "@Manager"},
        ),
    ],
    ids=["hire_members hires each role", "fire_members fires agents, not people or strangers"],
)
def test_a_batch_tool_acts_on_each_name_and_says_why_it_refused_one(
    retinue_team: TeamHarness,
    started: list[str],
    directive: str,
    answer: str,
    roster: set[str],
) -> None:
    team = retinue_team
    team.register(scripted_card("Manager"), scripted_card("Developer"), scripted_card("QA"))
    manager = team.start("Manager")
    for role in started:
        team.start(role)

    team.say(manager, directive)
    team.wait_idle(20)

    assert team.tool_results("@Manager") == [answer]
    assert set(team.roster()) == roster


def test_a_member_that_fires_itself_finishes_its_turn_and_leaves(
    retinue_team: TeamHarness, fired_itself: Callable[[ActorAddress, str], None]
) -> None:
    team = retinue_team
    team.register(scripted_card("Manager"))
    manager = team.start("Manager")
    fire = call_directive("fire_members", {"names": ["@Manager"]})

    team.say(manager, script(fire, answer="Goodbye."))
    team.wait_idle(20)  # the stop it queued for itself is owed work: waited for too

    [answer] = team.tool_results("@Manager")
    fired_itself(manager, answer)
    # the turn was finished, not cut off
    assert [m.content for m in team.received_by("@Human")] == ["Goodbye."]
    # The fixture then checks that the system shuts down within its timeout.


def test_the_member_cap_refuses_a_hire_by_the_model(
    retinue_team: TeamHarness, capped_lead: Callable[[int], ActorAddress]
) -> None:
    team = retinue_team
    lead = capped_lead(2)

    team.say(lead, call_directive("hire_members", {"roles": ["Developer", "Developer"]}))
    team.wait_idle(20)

    assert team.tool_results("@Lead") == [
        "Hired @Developer as Developer.\n"
        "Could not hire 'Developer': the team is full: it has 2 agents and allows at most 2 "
        "(fire a member first)"
    ]


def test_a_bare_role_beyond_the_cap_is_not_delivered(
    retinue_team: TeamHarness, capped_lead: Callable[[int], ActorAddress]
) -> None:
    team = retinue_team
    lead = capped_lead(1)

    team.say(lead, send_directive("Developer", "request", "Build it."))
    team.wait_idle(20)

    assert set(team.roster()) == {"@Human", "@Lead"}
