"""The orchestrator's queries, on its proxy and on the typed team view: each member's latest
state, the events of its window by member and kind, and members and profiles by skill."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from pydantic import BaseModel
from retinue import remote
from retinue.actors import Actor, ActorAddress, ActorSystem, BaseConfig, BaseState
from retinue.team import AgentCard, Orchestrator, Team, TeamConfig


class Tally(BaseState):
    count: int = 0


class Noted(BaseModel):
    n: int


class Flagged(BaseModel):
    n: int


class Counter(Actor[BaseConfig, Tally]):
    def default_state(self) -> Tally:
        return Tally()

    @remote
    def bump(self) -> None:
        self.state.count += 1

    @remote
    def publish(self, n: int, flagged: bool = False) -> None:
        self.notify_event(Flagged(n=n) if flagged else Noted(n=n))


class Crew:
    def __init__(self, window: int = 1000) -> None:
        self.system = ActorSystem(ask_timeout=10)
        config = TeamConfig(name="@Orchestrator", role="Orchestrator", window_size=window)
        self.orchestrator = self.system.createActor(Orchestrator, config)
        self.team: Any = self.system.proxy_ask(self.orchestrator, Orchestrator)

    def add(self, name: str, role: str = "Counter") -> ActorAddress:
        address: ActorAddress = self.team.createActor(Counter, BaseConfig(name=name, role=role))
        return address

    def view(self, member: ActorAddress) -> Team:
        return self.system.team_view(self.orchestrator, member)


@pytest.fixture
def crew() -> Iterator[Crew]:
    made = Crew()
    yield made
    assert made.system.shutdown(5)


def test_get_states_holds_each_member_s_latest_checkpoint(crew: Crew) -> None:
    a, b = crew.add("@A"), crew.add("@B")
    for _ in range(3):
        crew.system.proxy_ask(a).bump()
    crew.system.proxy_ask(b).bump()
    crew.system.wait_idle()

    states = crew.team.get_states()
    assert states == {a.agent_id: Tally(count=3), b.agent_id: Tally(count=1)}
    assert crew.view(a).states() == states  # what a card reads through its team

    states[a.agent_id] = Tally(count=99)  # a copy: the orchestrator's own is untouched
    assert crew.team.get_states()[a.agent_id] == Tally(count=3)

    assert crew.system.stop_actor(b)
    crew.system.wait_idle()
    assert set(crew.team.get_states()) == {a.agent_id}  # a member that left has no state


def test_get_events_filters_by_member_and_by_kind(crew: Crew) -> None:
    a, b = crew.add("@A"), crew.add("@B")
    crew.system.proxy_ask(a).publish(1)
    crew.system.proxy_ask(b).publish(2, flagged=True)
    crew.system.proxy_ask(a).publish(3, flagged=True)
    crew.system.wait_idle()

    def ns(messages: list[Any]) -> list[int]:
        return [m.event.n for m in messages]

    assert ns(crew.team.get_events()) == [1, 2, 3]
    assert ns(crew.team.get_events(agent_id=a.agent_id)) == [1, 3]
    assert ns(crew.team.get_events(event_class=Flagged)) == [2, 3]
    assert ns(crew.team.get_events(event_class="Flagged")) == [2, 3]  # the record's kind
    assert ns(crew.team.get_events(a.agent_id, Flagged)) == [3]
    assert ns(crew.team.get_events(event_class=BaseModel)) == [1, 2, 3]  # a base class too
    assert crew.team.get_events(agent_id="nobody") == []
    assert ns(crew.view(b).events(agent_id=b.agent_id)) == [2]


def test_get_events_reads_the_bounded_window_only() -> None:
    crew = Crew(window=4)
    try:
        a = crew.add("@A")
        for n in range(10):
            crew.system.proxy_ask(a).publish(n)
        crew.system.wait_idle()
        assert [m.event.n for m in crew.team.get_events()] == [6, 7, 8, 9]
        assert len(crew.team.get_messages()) == 4
    finally:
        assert crew.system.shutdown(5)


def _card(role: str, skills: list[str]) -> AgentCard:
    return AgentCard(skills=skills, agent_class=Counter, config=BaseConfig(role=role))


def test_profiles_and_members_are_found_by_skill(crew: Crew) -> None:
    crew.team.register_agent_profiles(
        [
            _card("Developer", ["Python", "testing"]),
            _card("Reviewer", [" python "]),
            _card("Writer", ["prose"]),
        ]
    )
    dev, writer = crew.add("@Dev", "Developer"), crew.add("@Writer", "Writer")
    crew.add("@Loose", "Unregistered")
    crew.system.wait_idle()

    python = crew.team.get_profiles_by_skill("PYTHON")  # case and spaces ignored
    assert [card.role for card in python] == ["Developer", "Reviewer"]
    assert crew.team.get_members_by_skill("python") == [dev]
    assert crew.team.get_members_by_skill("prose") == [writer]
    assert crew.team.get_profiles_by_skill("cooking") == []

    directory = crew.view(writer).directory  # what a card reads, without waiting
    assert [card.role for card in directory.profiles_with_skill("testing")] == ["Developer"]
    assert directory.members_with_skill("python") == [dev]
