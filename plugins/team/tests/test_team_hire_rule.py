"""One rule for who may hire whom, in the same words whichever surface asks."""

from __future__ import annotations

from retinue import RoutingSkippedEvent, TeamDirectory, may_hire
from retinue.testing import TeamHarness, call_directive, scripted_card, send_directive


def test_a_refused_hire_reads_the_same_from_command_tool_and_routing(
    retinue_team: TeamHarness,
) -> None:
    team = retinue_team
    team.register(
        scripted_card("Manager", routes_to=["QA", "Developer"]),
        scripted_card("Developer"),
        scripted_card("QA"),
        scripted_card("Auditor"),
    )
    manager = team.start("Manager")
    directory: TeamDirectory = team.orchestrator_proxy.get_directory()
    refusal = may_hire(directory, manager, "Auditor")
    assert refusal == "@Manager may not hire 'Auditor'; it may hire: Developer, QA"

    assert team.command(manager, "/hire_member Auditor") == (
        f"/hire_member failed: ValueError: {refusal}"
    )
    team.say(
        manager,
        call_directive("hire_members", {"roles": ["Auditor"]})
        + "\n"
        + send_directive("Auditor", "request", "check the books"),
    )
    team.wait_idle(20)

    assert team.tool_results("@Manager") == [f"Could not hire 'Auditor': {refusal}"]
    (skipped,) = team.events(RoutingSkippedEvent)
    assert skipped.recipient == "Auditor" and skipped.reason == refusal
    assert set(team.roster()) == {"@Human", "@Manager"}
