"""A fork made while a member waits for approval: the park goes on in the fork, and the
fork's own record says what waits and what was answered, for whatever reads it alone (the
web view's cards)."""

from __future__ import annotations

from pathlib import Path

from approval_writers import recorded
from retinue import EventMessage, ToolApprovalAnsweredEvent, ToolApprovalAskedEvent
from retinue.resume import fork_team
from retinue.store import open_store

from tests.resume.test_approval_resume import parked_on_two_writes


def own_events(where: str, team_id: str) -> list[object]:
    """The events in `team_id`'s own stream (not its source's), oldest first."""
    return [m.event for m in recorded(where, team_id) if isinstance(m, EventMessage)]


def test_a_fork_of_a_parked_member_records_the_park_and_goes_on(where: str, tmp_path: Path) -> None:
    source = parked_on_two_writes(where, tmp_path)

    with open_store(where, create=False) as store:
        fork = fork_team(store, source)
        try:
            fork.wait_idle(30)
            events = own_events(where, fork.team_id)
            member = fork.roster["@Writer"]
            [asked] = [e for e in events if isinstance(e, ToolApprovalAskedEvent)]
            [answered] = [e for e in events if isinstance(e, ToolApprovalAnsweredEvent)]
            assert (asked.agent, [c.id for c in asked.calls]) == (member, ["1", "2"])
            assert (answered.agent, answered.call_id, answered.verdict) == (member, "1", "approved")

            fork.send("/approve 2", to=member)
            fork.wait_idle(30)
        finally:
            assert fork.shutdown(10)

    assert (tmp_path / "a.txt").read_text() == "A" and (tmp_path / "b.txt").read_text() == "B"
    source_asks = [e for e in own_events(where, source) if isinstance(e, ToolApprovalAskedEvent)]
    assert len(source_asks) == 1  # the source's record is never written by its fork
