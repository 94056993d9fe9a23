"""`resolve_recipient`: a recipient that cannot be reached is None, never an exception."""

from __future__ import annotations

import logging

import pytest
from agent_cards import card
from retinue import (
    ActorAddress,
    AgentMessage,
    BaseAgent,
    ErrorMessage,
    FailureNotice,
    RoutingSkippedEvent,
    guard_usage_limits,
    resolve_recipient,
)
from retinue.agent.custom_agent import TriageMessage, TriageOutput
from retinue.testing import TeamHarness


class SnippetTriageAgent(BaseAgent):
    """A second agent class written as the spec shows one: no `try` around the resolution."""

    def _route_triage(self, output: TriageOutput) -> bool:
        delivered = False
        for handoff in output.handoffs:
            member = resolve_recipient(self, handoff.recipient)
            if member is None:
                continue
            self.send(member, AgentMessage(content=handoff.task, type="request"))
            delivered = True
        return delivered

    @guard_usage_limits(output_type=TriageOutput, route=_route_triage)
    def receiveMsg_TriageMessage(self, message: TriageMessage, sender: ActorAddress | None) -> None:
        self._route_triage(self.act(message.content, TriageOutput))


def test_a_hire_that_cannot_happen_costs_no_other_hand_off(
    retinue_team: TeamHarness, caplog: pytest.LogCaptureFixture
) -> None:
    team = retinue_team
    triage = team.add(card("Triage", "triage_ghost_then_human", agent_class=_path()))

    with caplog.at_level(logging.WARNING, logger="retinue.agent.routing"):
        team.system.proxy_tell(team.human).send(triage, TriageMessage(content="sort it"))
        team.wait_idle()

    received = team.received_by("@Human")
    answers = [m.content for m in received if not isinstance(m, FailureNotice)]
    assert answers == ["here is your answer"]
    (told,) = [m.content for m in received if isinstance(m, FailureNotice)]  # and the drop
    assert told.startswith("A message from @Triage to Ghost was not delivered: ")
    assert team.of(ErrorMessage) == []
    (logged,) = [r.getMessage() for r in caplog.records if "Ghost" in r.getMessage()]
    assert logged.startswith("@Triage: cannot reach Ghost: ")  # and says why


class Directory:
    """A `TeamResolver` of one's own: one member, and hiring that always fails."""

    def __init__(self, member: ActorAddress) -> None:
        self.member = member

    def get_team_member(self, name: str) -> ActorAddress | None:
        return self.member if name == self.member.name else None

    def hire_member(self, role: str) -> ActorAddress:
        raise ValueError(f"the team is full; cannot hire {role!r}")


def test_resolution_returns_none_and_logs_the_reason(caplog: pytest.LogCaptureFixture) -> None:
    ada = ActorAddress(name="@Ada", role="Developer", agent_id="a1")
    directory = Directory(ada)

    with caplog.at_level(logging.WARNING, logger="retinue.agent.routing"):
        assert resolve_recipient(directory, " @Ada ") == ada
        assert resolve_recipient(directory, "Reviewer") is None
        assert resolve_recipient(directory, "@Bob") is None

    reasons = [r.getMessage() for r in caplog.records]
    assert "cannot reach Reviewer: the team is full; cannot hire 'Reviewer'" in reasons[0]
    assert "cannot reach @Bob: no such member" in reasons[1]


def _path() -> str:
    return f"{__name__}.SnippetTriageAgent"


def test_a_skipped_hand_off_is_published_and_noted_for_the_model(
    retinue_team: TeamHarness,
) -> None:
    team = retinue_team
    triage = team.add(card("Triage", "triage_ghost_then_human", agent_class=_path()))

    team.system.proxy_tell(team.human).send(triage, TriageMessage(content="sort it"))
    team.wait_idle()

    (skipped,) = team.events(RoutingSkippedEvent)
    assert skipped.agent == triage and skipped.recipient == "Ghost"
    assert skipped.reason  # why: here, no role Ghost can be hired
    note = f"Not delivered to Ghost: {skipped.reason}."
    assert note in team.proxy(triage).get_context_transcript()


def test_a_custom_router_keeps_to_routes_to(retinue_team: TeamHarness) -> None:
    team = retinue_team
    team.register(card("Ghost", "developer"))
    triage = team.add(
        card("Triage", "triage_ghost_then_human", agent_class=_path(), routes_to=["QA"])
    )

    team.system.proxy_tell(team.human).send(triage, TriageMessage(content="sort it"))
    team.wait_idle()

    (skipped,) = team.events(RoutingSkippedEvent)
    assert skipped.reason == "@Triage may not hire 'Ghost'; it may hire: QA"
    assert set(team.roster()) == {"@Human", "@Triage"}
