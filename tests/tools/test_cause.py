"""`cause_of`: a card's work belongs to the message its agent is handling, or to none."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, ClassVar

from retinue import ToolCard
from retinue.kit import Cause, cause_of
from retinue.testing import StubHost, TeamHarness, call_directive, scripted_card


class CauseTool(ToolCard):
    name: ClassVar[str] = "cause"

    def get_tools(self) -> Sequence[Callable[..., Any]]:
        return [self.where]

    def where(self) -> str:
        """The chain and the message this call belongs to."""
        cause = cause_of(self.host)
        return f"{cause.chain_id} {cause.parent_id}"


def test_a_tool_call_belongs_to_the_message_its_agent_is_handling() -> None:
    team = TeamHarness()
    try:
        ada = team.add(scripted_card("Ada", tools=[CauseTool()]))
        team.say(ada, call_directive("where"))
        team.wait_idle(20)
        [asked] = team.received_by("@Ada")
        assert asked.chain_id is not None
        assert team.tool_results("@Ada") == [f"{asked.chain_id} {asked.id}"]
    finally:
        assert team.shutdown(10)


def test_outside_an_actor_nothing_caused_it() -> None:
    assert cause_of(CauseTool().bind(StubHost("@Ada")).host) == Cause()
