"""The typed team view: a versioned directory agents read without asking, and team changes."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from retinue import (
    ActorAddress,
    AgentMessage,
    BaseAgent,
    BaseConfig,
    DirectoryBoard,
    EventSubscriber,
    HumanProxy,
    Message,
    OrchestratorTeam,
    StartMessage,
    Team,
    TeamDirectory,
)
from retinue.actors import runtime
from retinue.testing import TeamHarness, scripted_card, send_directive


def _agent(address: ActorAddress) -> BaseAgent:
    actor = runtime.lookup(address.agent_id)
    assert isinstance(actor, BaseAgent)
    return actor


def _directory(team: TeamHarness) -> TeamDirectory:
    directory: TeamDirectory = team.orchestrator_proxy.get_directory()
    return directory


def test_every_change_of_roster_or_profiles_publishes_a_new_version(
    retinue_team: TeamHarness,
) -> None:
    team = retinue_team
    start = _directory(team)
    assert list(start.members) == ["@Human"]

    team.register(scripted_card("Worker"))
    registered = _directory(team)
    assert registered.version == start.version + 1
    assert list(registered.profiles) == ["Worker"]
    assert registered.members is start.members  # unchanged parts keep their identity

    worker = team.start("Worker")
    hired = _directory(team)
    assert hired.version == registered.version + 1
    assert hired.member("@Worker") == worker
    assert hired.profiles is registered.profiles
    assert hired.members.changed_since(registered.members) == ("@Worker",)
    assert hired.agent_count == 1

    team.register(scripted_card("Worker"))  # the same card again changes nothing
    assert _directory(team) is hired

    assert team.system.stop_actor(worker)
    team.wait_idle()
    left = _directory(team)
    assert left.version == hired.version + 1
    assert left.member("@Worker") is None
    assert start.members == {"@Human": team.human}  # a published directory never changes


def test_a_board_never_goes_back_to_an_older_version() -> None:
    board = DirectoryBoard()
    newer = TeamDirectory(version=2)
    board.publish(newer)

    with pytest.raises(ValueError, match="version 1 is older than the published 2"):
        board.publish(TeamDirectory(version=1))
    assert board.current is newer


def test_an_agent_s_team_is_a_typed_view_of_the_published_directory(
    retinue_team: TeamHarness,
) -> None:
    team = retinue_team
    team.register(scripted_card("Worker", routes_to=["Worker"]))
    agent = _agent(team.start("Worker"))

    view = agent.team
    assert isinstance(view, Team)
    assert isinstance(view, OrchestratorTeam)
    assert view.directory is _directory(team)
    assert set(view.members) == {"@Human", "@Worker"}
    assert list(view.profiles) == ["Worker"]
    assert agent.get_team_member(" @Human ") == team.human
    assert agent._hireable_roles() == ["Worker"]


class Gate(EventSubscriber):
    """Holds the orchestrator's thread inside its first message once armed."""

    def __init__(self) -> None:
        self.armed = False
        self.holding = threading.Event()
        self.release = threading.Event()

    def on_message(self, message: Message) -> None:
        if self.armed and not self.holding.is_set():
            self.holding.set()
            self.release.wait(30)


class Inbox(HumanProxy):
    """A person whose messages can be waited for."""

    arrived = threading.Event()

    def on_agent_message(self, message: AgentMessage, sender: ActorAddress | None) -> None:
        Inbox.arrived.set()


def test_a_turn_does_not_wait_on_the_orchestrator(retinue_plugin_manager: Any) -> None:
    # Short asks: a turn that still asked would give up well before the test does.
    team = TeamHarness(plugin_manager=retinue_plugin_manager, ask_timeout=2.0)
    gate = Gate()
    try:
        team.orchestrator_proxy.subscribe(gate)
        person: ActorAddress = team.orchestrator_proxy.createActor(
            Inbox, BaseConfig(name="@Person", role="Person")
        )
        team.register(scripted_card("Worker"))
        worker = team.start("Worker")
        Inbox.arrived.clear()

        gate.armed = True
        team.say(worker, send_directive("@Person", "response", "done"))
        assert gate.holding.wait(10), "the orchestrator never received the message's report"

        # The orchestrator is stuck; the worker still reads its team, checks and routes.
        assert Inbox.arrived.wait(10), "the turn waited on the orchestrator"
        assert person.is_alive()
    finally:
        gate.release.set()
        assert team.shutdown(timeout=10)


def test_hire_fire_and_stop_go_through_the_team_view(retinue_team: TeamHarness) -> None:
    team = retinue_team
    team.register(scripted_card("Lead"), scripted_card("Developer"))
    lead = team.start("Lead")
    view = _agent(lead).team
    assert view is not None

    ada = view.hire("Developer", name="@Ada")
    assert ada.name == "@Ada" and ada.role == "Developer"
    assert view.members["@Ada"] == ada  # listed as soon as the hire returns
    team.wait_idle()
    (start,) = [m for m in team.of(StartMessage) if m.sender == ada]
    assert start.parent == lead  # hired by the member the view belongs to

    with pytest.raises(ValueError, match="no role 'Ghost' is registered"):
        view.hire("Ghost")
    with pytest.raises(ValueError, match="@Human is a person"):
        view.fire(team.human)

    assert view.fire(ada, timeout=10) is True
    assert "@Ada" not in view.members  # gone from the directory once fire returns
    assert not ada.is_alive()

    bob = view.hire("Developer", name="@Bob")
    assert view.stop(bob, timeout=10) is True
    assert not bob.is_alive()

    assert view.stop(lead) is False  # oneself: never waited for
    team.wait_idle()
    assert not lead.is_alive()
    assert set(view.members) == {"@Human"}
