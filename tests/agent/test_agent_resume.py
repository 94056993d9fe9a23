"""An agent resumed from what an earlier agent recorded: state, card state, history, budget.

No store here: the events and checkpoints are the ones the orchestrator recorded for the
first agent, handed to `Resumption` (and `init_llm_context`) the way the team restorer does.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, ClassVar

import pytest
from agent_cards import card, prompts
from pydantic import BaseModel
from retinue import (
    ActorAddress,
    AgentUsageLimits,
    EventMessage,
    HandledMessage,
    SentMessage,
    StateChangedMessage,
    ToolCard,
)
from retinue.actors.resumption import Resumption
from retinue.testing import TeamHarness
from retinue.tools import ContextMarker, find_markers


class Tally(BaseModel):
    count: int = 0
    last: str = ""


class TallyTool(ToolCard):
    """A card whose own state must survive: a counter an operator advances."""

    name: ClassVar[str] = "tally"

    def get_commands(self) -> Sequence[Any]:
        return [self.tally]

    def tally(self, label: str = "") -> str:
        """Count one more."""
        state = self.card_state(Tally)
        state.count += 1
        state.last = label
        return f"{state.count} ({state.last})"


def recorded(team: TeamHarness, member: ActorAddress) -> tuple[Any, list[EventMessage]]:
    """The member's last checkpoint as a store gives it back (dumped), and its events."""
    checkpoints = [m for m in team.of(StateChangedMessage) if m.sender == member]
    events = [m for m in team.of(EventMessage) if m.sender == member]
    return checkpoints[-1].model_dump(mode="json")["state"], events


def resume(team: TeamHarness, member: ActorAddress, state: Any, events: Any) -> ActorAddress:
    """Stop `member`, then start it again from `state` and `events` under its own address."""
    config = team.orchestrator_proxy.get_agent_profile(member.role).get_config_copy()
    assert team.system.stop_actor(member)
    team.wait_idle()
    return team.system.spawn(
        "retinue.BaseAgent",
        config,
        orchestrator=team.orchestrator,
        parent=team.orchestrator,
        resumption=Resumption(address=member, state=state, events=events),
    )


def test_a_cards_own_state_rides_the_checkpoint_and_comes_back(retinue_team: TeamHarness) -> None:
    team = retinue_team
    clerk = team.add(card("Clerk", "silent", tools=[TallyTool()]))
    assert team.command(clerk, "/tally first") == "1 (first)"
    assert team.command(clerk, "/tally second") == "2 (second)"
    state, events = recorded(team, clerk)
    assert state["tool_state"]["cards"] == {"tally": {"count": 2, "last": "second"}}

    back = resume(team, clerk, state, events)

    assert (back.name, back.agent_id) == (clerk.name, clerk.agent_id)
    assert team.roster()["@Clerk"] == "Clerk"  # not @Clerk2
    assert team.command(back, "/tally third") == "3 (third)"


def test_a_card_state_that_no_longer_fits_is_one_clear_error_and_is_kept(
    retinue_team: TeamHarness,
) -> None:
    team = retinue_team
    clerk = team.add(card("Clerk", "silent", tools=[TallyTool()]))
    team.command(clerk, "/tally")
    state, events = recorded(team, clerk)
    state["tool_state"]["cards"]["tally"] = {"count": "many"}

    back = resume(team, clerk, state, events)

    answer = team.command(back, "/tally")
    assert "CardStateError" in answer and "'tally'" in answer and "count" in answer
    kept, _ = recorded(team, back)
    # Nothing lost: the data waits for a card that fits it.
    assert kept["tool_state"]["cards"]["tally"] == {"count": "many"}


def test_the_lifetime_budget_resumes_where_it_was(retinue_team: TeamHarness) -> None:
    """The spec's example: an agent that spent 180 of its 200 runs comes back with 20."""
    team = retinue_team
    limits = AgentUsageLimits(agent_request_limit=200)
    worker = team.add(card("Worker", "silent", agent_limits=limits))
    for n in range(180):
        team.say(worker, f"job {n}")
    team.wait_idle(120)
    state, events = recorded(team, worker)
    assert team.proxy(worker).get_usage_summary().runs == 180

    back = resume(team, worker, state, events)

    assert team.proxy(back).get_usage_summary().runs == 180
    for n in range(21):
        team.say(back, f"more {n}")
    team.wait_idle(60)
    assert team.proxy(back).get_usage_summary().runs == 200
    assert len(prompts(team, "@Worker")) == 200  # the 21st was refused, not run
    notices = [m.content for m in team.received_by("@Human") if m.type == "notification"]
    assert any(n.startswith("@Worker stopped:") and "200 runs" in n for n in notices)


def test_a_resumed_agent_whose_last_block_survives_is_told_nothing_new(
    retinue_team: TeamHarness,
) -> None:
    pytest.importorskip("retinue_team", reason="the context block comes from the team card")
    """The spec's other example: after a resume the context update is usually empty."""
    team = retinue_team
    lead = team.add(card("Lead", "silent"))
    team.say(lead, "before")
    team.wait_idle()
    state, events = recorded(team, lead)
    assert state["tool_state"]["last_block"] == 1

    back = resume(team, lead, state, events)
    team.say(back, "after")
    team.wait_idle()

    before, after = team.model_requests("@Lead")
    assert find_markers(before) == [ContextMarker(1, full=True)]
    assert find_markers(after) == [ContextMarker(1, full=True)]  # nothing appended
    assert recorded(team, back)[0]["tool_state"]["last_block"] == 1


def test_without_its_checkpoint_a_resumed_agent_gets_one_full_snapshot(
    retinue_team: TeamHarness,
) -> None:
    pytest.importorskip("retinue_team", reason="the context block comes from the team card")
    team = retinue_team
    lead = team.add(card("Lead", "silent"))
    team.say(lead, "before")
    team.wait_idle()
    _, events = recorded(team, lead)

    back = resume(team, lead, None, events)  # the history alone: the slot was lost
    team.say(back, "after")
    team.wait_idle()

    after = team.model_requests("@Lead")[-1]
    # One full snapshot, numbered after the block the history shows: N stays monotonic.
    assert find_markers(after) == [ContextMarker(1, full=True), ContextMarker(2, full=True)]


def test_every_turn_is_reported_handled_after_what_it_did(retinue_team: TeamHarness) -> None:
    team = retinue_team
    lead = team.add(card("Lead", "silent"))
    team.say(lead, "hello")
    team.wait_idle()

    (delivered,) = [m.message for m in team.of(SentMessage) if m.recipient == lead]
    mine = [m for m in team.recorder.messages if m.sender == lead]
    handled = [m for m in mine if isinstance(m, HandledMessage)]
    assert [h.message_id for h in handled] == [delivered.id]
    assert mine[-1] is handled[0]  # the last thing the turn reported
    assert handled[0].parent_id == delivered.id


def test_init_llm_context_takes_only_the_agents_own_events(retinue_team: TeamHarness) -> None:
    team = retinue_team
    lead = team.add(card("Lead", "silent"))
    other = team.add(card("Other", "silent"))
    team.say(lead, "for the lead")
    team.say(other, "for the other")
    team.wait_idle()
    state, _ = recorded(team, lead)
    everyones = team.of(EventMessage)  # the whole team's events, as a careless caller has them

    back = resume(team, lead, state, everyones)

    history = team.proxy(back).get_context_transcript()
    assert "for the lead" in history and "for the other" not in history
    assert team.proxy(back).get_usage_summary().runs == 1
