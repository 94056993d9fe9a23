"""Stopping an actor stops the actors it created: parent addresses, `Team.stop(recursive=True)`,
`StopRecursively`, a recursive fire, and the tree kept across a resume."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import pytest
from retinue import (
    ActorAddress,
    BaseAgent,
    StopMessage,
    StopRecursively,
    TeamMember,
    remote,
)
from retinue.actors import Actor, ActorSystem, BaseConfig, Message, UserProxy
from retinue.resume import resume_team
from retinue.store import open_store
from retinue.team import Orchestrator
from retinue.team.lineage import descendants, roots
from retinue.testing import TeamHarness, scripted_card
from retinue.testing.team import Recorder


class Hold(Message):
    """Keeps its recipient in a handler until `Maker.release` is set."""


class Maker(Actor[BaseConfig, Any]):
    """Creates actors on request (from its own thread, so it is their parent)."""

    release = threading.Event()
    holding = threading.Event()

    @remote
    def make(self, name: str, person: bool = False) -> ActorAddress:
        cls = UserProxy if person else Maker
        return self.createActor(cls, BaseConfig(name=name, role="Person" if person else "Maker"))

    def receiveMsg_Hold(self, message: Hold, sender: ActorAddress | None) -> None:
        Maker.holding.set()
        assert Maker.release.wait(10)


class Tree:
    """@Lead made @A and @B, @A made @A1; @Other was made by the orchestrator beside them."""

    def __init__(self) -> None:
        self.system = ActorSystem(ask_timeout=10)
        self.orchestrator = self.system.createActor(
            Orchestrator, BaseConfig(name="@Orchestrator", role="Orchestrator")
        )
        self.team: Any = self.system.proxy_ask(self.orchestrator, Orchestrator)
        self.recorder = Recorder()
        self.team.subscribe(self.recorder, replay=True)
        self.lead = self.team.createActor(Maker, BaseConfig(name="@Lead", role="Maker"))
        self.other = self.team.createActor(Maker, BaseConfig(name="@Other", role="Maker"))
        lead: Any = self.system.proxy_ask(self.lead)
        self.a: ActorAddress = lead.make("@A")
        self.b: ActorAddress = lead.make("@B")
        self.a1: ActorAddress = self.system.proxy_ask(self.a, Maker).make("@A1")
        self.system.wait_idle()

    def stopped(self) -> list[str]:
        stops = [m for m in self.recorder.messages if isinstance(m, StopMessage)]
        return [m.sender.name for m in stops if m.sender is not None]

    def running(self) -> set[str]:
        return {address.name for address in self.system.actors()}


@pytest.fixture
def tree() -> Any:
    Maker.release.set()
    Maker.holding.clear()
    made = Tree()
    yield made
    Maker.release.set()
    assert made.system.shutdown(5)


def test_every_actor_knows_its_parent_and_the_roster_keeps_it(tree: Tree) -> None:
    parents = {
        tree.lead: tree.orchestrator,
        tree.a: tree.lead,
        tree.b: tree.lead,
        tree.a1: tree.a,
    }
    for child, parent in parents.items():
        actor = tree.system.local_actor(child)
        assert actor is not None and actor.parent == parent
    roster = {m.address: m.parent for m in tree.team.get_team()}
    assert roster == {**parents, tree.other: tree.orchestrator}
    assert tree.team.get_descendants(tree.lead) == [tree.a1, tree.a, tree.b]
    assert tree.team.get_descendants(tree.a1) == []


def test_a_recursive_stop_stops_what_a_member_created_deepest_first(tree: Tree) -> None:
    view = tree.system.team_view(tree.orchestrator, tree.other)
    assert view.stop(tree.lead, timeout=10, recursive=True) is True
    tree.system.wait_idle()
    assert tree.stopped() == ["@A1", "@A", "@B", "@Lead"]
    assert tree.running() == {"@Orchestrator", "@Other"}
    assert set(view.members) == {"@Other"}


def test_a_plain_stop_stops_the_member_alone(tree: Tree) -> None:
    view = tree.system.team_view(tree.orchestrator, tree.other)
    assert view.stop(tree.a, timeout=10) is True
    tree.system.wait_idle()
    assert tree.stopped() == ["@A"]
    assert "@A1" in tree.running()
    assert tree.team.get_descendants(tree.lead) == [tree.b]  # @A1's creator has gone


def test_stop_recursively_sent_to_a_member_stops_it_after_its_children(tree: Tree) -> None:
    tree.system.send(tree.a, StopRecursively())
    tree.system.wait_idle()
    assert tree.stopped() == ["@A1", "@A"]
    assert tree.running() == {"@Orchestrator", "@Lead", "@B", "@Other"}


def test_stop_recursively_sent_to_the_orchestrator_stops_the_whole_team_it_last(
    tree: Tree,
) -> None:
    person = tree.team.createActor(UserProxy, BaseConfig(name="@Human", role="Human"))
    assert person.is_user_proxy
    tree.system.send(tree.orchestrator, StopRecursively())
    tree.system.wait_idle()
    stopped = tree.stopped()
    assert stopped[-1] == "@Orchestrator"
    assert sorted(stopped[:-1]) == ["@A", "@A1", "@B", "@Human", "@Lead", "@Other"]
    assert stopped.index("@A1") < stopped.index("@A") < stopped.index("@Lead")
    assert stopped.index("@B") < stopped.index("@Lead")
    assert tree.running() == set()


def test_a_recursive_stop_spares_a_person_s_proxy(tree: Tree) -> None:
    person = tree.system.proxy_ask(tree.b, Maker).make("@Visitor", person=True)
    assert tree.team.get_descendants(tree.lead) == [tree.a1, tree.a, tree.b]
    view = tree.system.team_view(tree.orchestrator, tree.other)
    assert view.stop(tree.lead, timeout=10, recursive=True) is True
    tree.system.wait_idle()
    assert person.is_alive()
    assert "@Visitor" in view.members


def test_a_recursive_stop_past_its_timeout_still_stops_everyone_later(tree: Tree) -> None:
    Maker.release.clear()
    tree.system.send(tree.a1, Hold())
    assert Maker.holding.wait(10)
    view = tree.system.team_view(tree.orchestrator, tree.other)
    assert view.stop(tree.lead, timeout=0.2, recursive=True) is False  # @A1 is still busy
    Maker.release.set()
    tree.system.wait_idle()
    assert set(tree.stopped()) == {"@A1", "@A", "@B", "@Lead"}
    assert tree.running() == {"@Orchestrator", "@Other"}


def test_the_tree_walk_follows_parents_skips_people_and_survives_a_cycle() -> None:
    def address(name: str, person: bool = False) -> ActorAddress:
        return ActorAddress(name=name, role="R", agent_id=name, is_user_proxy=person)

    lead, a, b, a1, orphan = (address(n) for n in ("L", "A", "B", "A1", "O"))
    person = address("P", person=True)
    members = [
        TeamMember(address=lead),
        TeamMember(address=a, parent=lead),
        TeamMember(address=person, parent=lead),
        TeamMember(address=a1, parent=a),
        TeamMember(address=b, parent=lead),
        TeamMember(address=orphan, parent=address("gone")),
        TeamMember(address=lead, parent=a1),  # a record claiming a cycle
    ]
    assert descendants(members, lead) == [a1, a, b]
    assert descendants(members, b) == []
    assert roots(members[:6]) == [lead, orphan]


def test_a_fire_takes_the_members_the_fired_one_hired(retinue_team: TeamHarness) -> None:
    team = retinue_team
    team.register(scripted_card("Lead"), scripted_card("Developer"), scripted_card("Tester"))
    lead = team.start("Lead")
    view = _agent(lead).team
    assert view is not None
    dev = view.hire("Developer")
    dev_view = _agent(dev).team
    assert dev_view is not None
    tester = dev_view.hire("Tester")
    team.wait_idle()

    assert view.fire(dev, timeout=10) is True
    team.wait_idle()
    left = [m.sender for m in team.of(StopMessage)]
    assert left == [tester, dev]
    assert set(view.members) == {"@Human", "@Lead"}


def _agent(address: ActorAddress) -> BaseAgent:
    from retinue.actors import runtime

    actor = runtime.lookup(address.agent_id)
    assert isinstance(actor, BaseAgent)
    return actor


def resumed_stops(resumed: Any) -> list[StopMessage]:
    return [m for m in resumed.team.get_messages() if isinstance(m, StopMessage)]


def test_a_resumed_team_keeps_every_parent_and_stops_by_them(
    tmp_path: Path, retinue_plugin_manager: Any
) -> None:
    where = tmp_path / "team.sqlite"
    team = TeamHarness(plugin_manager=retinue_plugin_manager, store=where)
    try:
        team.register(scripted_card("Lead"), scripted_card("Developer"))
        lead = team.start("Lead")
        view = _agent(lead).team
        assert view is not None
        dev = view.hire("Developer")
        team.wait_idle()
        team_id = team.team_id
    finally:
        assert team.shutdown(10)

    store = open_store(where, create=False)
    resumed = resume_team(store, team_id)
    try:
        dev_back = resumed.roster["@Developer"]
        lead_back = resumed.roster["@Lead"]
        assert (dev_back, lead_back) == (dev, lead)  # equal by value after the round trip
        actor = resumed.system.local_actor(dev_back)
        assert actor is not None and actor.parent is not None
        assert actor.parent.model_dump() == lead.model_dump()  # every field, not the id alone
        roster = {m.address.name: m.parent for m in resumed.team.get_team()}
        assert roster["@Developer"] == lead and roster["@Lead"] == resumed.orchestrator

        assert resumed.human is not None
        back_view = resumed.system.team_view(resumed.orchestrator, resumed.human)
        assert back_view.stop(lead_back, timeout=10, recursive=True) is True
        resumed.system.wait_idle()
        left = [m.sender for m in resumed_stops(resumed)]
        assert left == [dev_back, lead_back]
        assert not dev_back.is_alive() and not lead_back.is_alive()
    finally:
        assert resumed.shutdown(10)
        store.close()
