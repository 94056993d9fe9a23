"""The roster and the role profiles reach every agent as context updates."""

from __future__ import annotations

from retinue import ActorAddress
from retinue.testing import TeamHarness, scripted_card, send_directive

FULL = "**Context update 1** — current state."
DELTA = "**Context update 2** — state has changed since the last update."


def test_a_hired_member_starts_with_the_roster_and_later_gets_a_delta(
    retinue_team: TeamHarness, manager: ActorAddress
) -> None:
    team = retinue_team
    team.say(manager, send_directive("Developer", "request", "Please look at the build."))
    team.wait_idle(20)

    # The hired member's first prompt carries everything, as a full snapshot.
    [first] = team.context_updates("@Developer", 0)
    assert first.startswith(FULL)
    assert "### Team roster\n" in first
    assert "- @Developer\n" in first  # its name says its role
    assert "- @Human: a person\n" in first
    assert "- @Manager\n" in first  # no busy flag: it would change every turn
    assert "### Role profiles\n" in first
    assert "- Developer: Writes and reviews code (skills: python)\n" in first
    assert "You may hire" not in first  # its role names no roles: it may hire any
    assert "@DevOpsEngineer" not in first

    assert team.command(manager, "/hire_member DevOpsEngineer") == "@DevOpsEngineer"
    team.say(manager, send_directive("@Developer", "request", "And now the deployment."))
    team.wait_idle(20)

    # Its next prompt says only what changed: the new member.
    assert len(team.model_requests("@Developer")) == 2
    [second] = team.context_updates("@Developer", 1)[-1:]
    assert second.startswith(DELTA)
    assert second.endswith("### Team roster (changed)\nAdded:\n- @DevOpsEngineer")
    assert "### Role profiles" not in second  # unchanged, so not repeated
    assert FULL not in second


def test_role_profiles_say_which_roles_this_agent_may_hire(retinue_team: TeamHarness) -> None:
    team = retinue_team
    team.register(
        scripted_card("Manager", routes_to=["Developer"]),
        scripted_card("Developer"),
        scripted_card("Auditor", description="Reads the books"),
    )
    manager = team.start("Manager")

    team.say(manager, "Hello.")
    team.wait_idle(20)

    [block] = team.context_updates("@Manager", 0)
    assert "- Auditor: Reads the books\n" in block
    assert "- Developer: Does the work of a Developer\n" in block
    assert "- You may hire: Developer\n" in block
