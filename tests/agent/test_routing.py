"""Routing bad recipients: one correction in the same run, then a skip with a note."""

from __future__ import annotations

from agent_cards import card
from retinue import BaseAgent, ErrorMessage, FailureNotice, RoutingSkippedEvent
from retinue.testing import TeamHarness


def test_unknown_member_is_corrected_within_the_run(retinue_team: TeamHarness) -> None:
    team = retinue_team
    worker = team.add(card("Worker", "corrects_after_retry"))
    team.say(worker, "say hello")
    team.wait_idle()
    assert [m.content for m in team.received_by("@Human")] == ["fixed"]
    assert len(team.model_requests("@Worker")) == 2  # one run, two requests
    transcript = team.proxy(worker).get_context_transcript()
    assert "@Nobody is not a member" in transcript
    assert "Members: @Human" in transcript
    assert team.events(RoutingSkippedEvent) == []


def test_still_unknown_member_is_skipped_with_a_note(retinue_team: TeamHarness) -> None:
    team = retinue_team
    worker = team.add(card("Worker", "to_nobody"))
    team.say(worker, "say hello")
    team.wait_idle()
    assert len(team.model_requests("@Worker")) == 2  # corrected once, no more
    (skipped,) = team.events(RoutingSkippedEvent)
    assert skipped.recipient == "@Nobody" and "no such member" in skipped.reason
    note = "[retinue] Not delivered to @Nobody: no such member."
    assert note in team.proxy(worker).get_context_transcript()
    assert team.of(ErrorMessage) == []
    assert [m.recipient.name for m in team.sent() if m.recipient] == ["@Worker", "@Human"]
    (told,) = team.received_by("@Human")  # the person hears of the drop, from the kernel
    assert isinstance(told, FailureNotice)
    assert told.content == "A message from @Worker to @Nobody was not delivered: no such member"


def test_hiring_an_unregistered_role_is_reported_not_raised(retinue_team: TeamHarness) -> None:
    team = retinue_team
    worker = team.add(card("Worker", "hires_ghost"))
    team.say(worker, "get help")
    team.wait_idle()
    (skipped,) = team.events(RoutingSkippedEvent)
    assert skipped.recipient == "Ghost"
    assert team.of(ErrorMessage) == []
    transcript = team.proxy(worker).get_context_transcript()
    assert "Ghost is not a role you can hire" in transcript
    assert "Not delivered to Ghost: " in transcript


def test_roles_outside_routes_to_cannot_be_hired(retinue_team: TeamHarness) -> None:
    team = retinue_team
    team.register(card("Developer", "developer"))
    manager = team.add(card("Manager", "manager", routes_to=["QA"]))
    team.say(manager, "plan")
    team.wait_idle()
    (skipped,) = team.events(RoutingSkippedEvent)
    assert skipped.recipient == "Developer"
    assert "may not hire 'Developer'" in skipped.reason
    assert [a.role for a in team.orchestrator_proxy.get_team_members()] == [
        "Human",
        "Manager",
    ]


def test_base_agent_keeps_the_names_its_subclasses_and_the_docs_use() -> None:
    # Routing and the failure hooks live in their own modules; the agent keeps every name.
    names = [
        "_route_output",
        "_locate",
        "_hireable_roles",
        "_skip",
        "get_team_member",
        "hire_member",
        "routing_problems",
        "team",
        "_dispatch_command",
        "_reply",
        "compact",
        "clear",
        "notify_human",
        "on_handler_failed",
        "on_start_failed",
        "createActor",
        "receiveMsg_StartFailedMessage",
        "undeliverable_notice",
        "_absorbs",
        "_tell_person",
        "_failure_memory",
    ]
    assert [name for name in names if not hasattr(BaseAgent, name)] == []
