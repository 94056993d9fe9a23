"""The team commands, driven by a person with slash commands, and by code."""

from __future__ import annotations

import time
from collections.abc import Callable

import pytest
from retinue import ActorAddress
from retinue.testing import TeamHarness, scripted_card, send_directive, user_texts


def test_team_members_lists_the_roster(retinue_team: TeamHarness, manager: ActorAddress) -> None:
    answer = retinue_team.command(manager, "/team_members")

    assert answer.splitlines() == ["@Human — Human (a person)", "@Manager — Manager (busy)"]


def test_hire_then_fire_changes_the_roster(
    retinue_team: TeamHarness, manager: ActorAddress
) -> None:
    team = retinue_team
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


def test_a_fired_members_name_is_free_for_the_next_hire(
    retinue_team: TeamHarness, manager: ActorAddress
) -> None:
    team = retinue_team
    first = team.command(manager, "/hire_member DevOpsEngineer")
    team.command(manager, f"/fire_member {first}")

    second = team.command(manager, "/hire_member DevOpsEngineer")

    assert first == second == "@DevOpsEngineer"  # not @DevOpsEngineer2
    ids = [m.agent_id for m in team.orchestrator_proxy.get_team_members()]
    assert len(ids) == len(set(ids)) == 3  # a new member, under the freed name


def test_hire_under_a_chosen_name(retinue_team: TeamHarness, manager: ActorAddress) -> None:
    team = retinue_team
    assert team.command(manager, "/hire_member Developer name=@Ada") == "@Ada"
    assert team.command(manager, "/hire_member Developer name=Ada") == "@Ada2"  # kept unique

    assert team.roster()["@Ada"] == "Developer"
    assert team.roster()["@Ada2"] == "Developer"


def test_team_roles_says_what_this_agent_may_hire(
    retinue_team: TeamHarness, manager: ActorAddress
) -> None:
    lines = retinue_team.command(manager, "/team_roles").splitlines()

    assert "Developer — Writes and reviews code [python]" in lines
    assert "Auditor — Reads the books (not hireable by this agent)" in lines


@pytest.mark.parametrize(
    ("role", "refusal"),
    [
        (
            "Astronaut",
            "no role 'Astronaut' is registered; registered roles: "
            "Auditor, DevOpsEngineer, Developer, Manager",
        ),
        ("Auditor", "@Manager may not hire 'Auditor'; it may hire: DevOpsEngineer, Developer"),
    ],
    ids=["an unknown role", "a role outside routes_to"],
)
def test_a_refused_hire_says_why_and_hires_nobody(
    retinue_team: TeamHarness, manager: ActorAddress, role: str, refusal: str
) -> None:
    """An unknown role is refused with the registered roles; routes_to limits the roles."""
    team = retinue_team
    answer = team.command(manager, f"/hire_member {role}")

    assert answer == f"/hire_member failed: ValueError: {refusal}"
    assert set(team.roster()) == {"@Human", "@Manager"}


def test_an_agent_without_routes_to_may_hire_any_role(
    retinue_team: TeamHarness, manager: ActorAddress
) -> None:
    developer = retinue_team.start("Developer")

    assert retinue_team.command(developer, "/hire_member Auditor") == "@Auditor"


def test_firing_the_person_is_refused(retinue_team: TeamHarness, manager: ActorAddress) -> None:
    team = retinue_team
    answer = team.command(manager, "/fire_member @Human")

    assert answer == (
        "/fire_member failed: ValueError: @Human is a person, not an agent, and cannot be fired"
    )
    assert "@Human" in team.roster()


def test_firing_an_unknown_name_is_refused(
    retinue_team: TeamHarness, manager: ActorAddress
) -> None:
    answer = retinue_team.command(manager, "/fire_member @Nobody")

    assert answer == (
        "/fire_member failed: ValueError: no member is called @Nobody; "
        "the members are: @Human, @Manager"
    )


def test_an_agent_firing_itself_by_command_returns_and_leaves(
    retinue_team: TeamHarness,
    manager: ActorAddress,
    fired_itself: Callable[[ActorAddress, str], None],
) -> None:
    # The stop it queued for itself is owed work, so the command's `wait_idle` saw it through.
    fired_itself(manager, retinue_team.command(manager, "/fire_member @Manager"))


def test_the_member_cap_refuses_a_hire(
    retinue_team: TeamHarness, capped_lead: Callable[[int], ActorAddress]
) -> None:
    team = retinue_team
    lead = capped_lead(2)

    assert team.command(lead, "/hire_member Developer") == "@Developer"
    answer = team.command(lead, "/hire_member Developer")

    assert answer == (
        "/hire_member failed: ValueError: the team is full: it has 2 agents and allows at "
        "most 2 (fire a member first)"
    )
    assert set(team.roster()) == {"@Human", "@Lead", "@Developer"}


def test_the_typed_command_returns_the_new_address(
    retinue_team: TeamHarness, manager: ActorAddress
) -> None:
    team = retinue_team
    # BaseAgent.hire_member resolves the registry's typed `hire_member` command.
    address = team.proxy(manager).hire_member("Developer")

    assert address.name == "@Developer"
    assert address.role == "Developer"
    assert address.is_alive()
    assert team.roster()["@Developer"] == "Developer"


def test_an_agent_cannot_fire_by_writing_a_slash_command(
    retinue_team: TeamHarness, manager: ActorAddress
) -> None:
    # Another agent's "/fire_member" is content for the model, never a command.
    team = retinue_team
    team.register(scripted_card("Developer"))
    developer = team.start("Developer")
    team.say(manager, send_directive("@Developer", "request", "/fire_member @Manager"))
    team.wait_idle(20)

    assert [m.content for m in team.received_by("@Developer")] == ["/fire_member @Manager"]
    assert developer.is_alive()
    assert set(team.roster()) == {"@Human", "@Manager", "@Developer"}


def test_a_megabyte_hire_is_refused_at_once_and_echoed_nowhere(
    retinue_team: TeamHarness, manager: ActorAddress
) -> None:
    team = retinue_team
    role = "R" * 1_000_000

    started = time.perf_counter()
    answer = team.command(manager, f"/hire_member {role}")
    elapsed = time.perf_counter() - started

    assert answer.startswith("/hire_member: the command is too long (1,000,013 characters")
    assert len(answer) < 200
    assert elapsed < 5  # main took 18.5 s to parse it
    assert set(team.roster()) == {"@Human", "@Manager"}
    team.say(manager, send_directive("@Human", "response", "still here"))
    team.wait_idle()
    later = "\n".join(user_texts(team.model_requests("@Manager")[-1]))
    assert "R" * 250 not in later and len(later) < 5_000


def test_a_refused_hire_does_not_echo_a_long_role(
    retinue_team: TeamHarness, manager: ActorAddress
) -> None:
    answer = retinue_team.command(manager, "/hire_member " + "Q" * 900)

    assert "no role" in answer and "Q" * 250 not in answer and len(answer) < 400


@pytest.mark.parametrize(
    "name",
    ["@Ada\u202eadA", "@Human\u200b", "@Ada\u0007", "@" + "A" * 80],
    ids=["bidi-override", "zero-width", "control", "too-long"],
)
def test_a_hire_under_a_name_no_member_may_carry_is_refused(
    retinue_team: TeamHarness, manager: ActorAddress, name: str
) -> None:
    answer = retinue_team.command(manager, f"/hire_member Developer name={name}")

    assert answer.startswith("/hire_member failed: ValueError: a member name ")
    assert "\n" not in answer
    assert set(retinue_team.roster()) == {"@Human", "@Manager"}
