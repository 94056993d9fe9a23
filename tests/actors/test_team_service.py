"""`TeamService`: one per team and runtime, attached to the team without being a member.

A real team (`TeamHarness`) and real actor systems; the service is a counter.
"""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from retinue import (
    ActorAddress,
    ActorSystem,
    BaseState,
    Runtime,
    StartMessage,
    StateChangedMessage,
    remote,
)
from retinue.kit import TeamService, TeamServiceConfig, service_key
from retinue.testing import TeamHarness


class Tally(BaseState):
    count: int = 0


class TallyConfig(TeamServiceConfig):
    tally_key: str = ""


@dataclass(frozen=True)
class TallyHandle:
    system: Runtime
    address: ActorAddress


class TallyService(TeamService[TallyConfig, Tally]):
    @property
    def service_key(self) -> str:
        return self.config.tally_key

    def service_handle(self) -> TallyHandle:
        return TallyHandle(self.system, self.myAddress)

    def default_state(self) -> Tally:
        return Tally()

    @remote
    def add(self) -> int:
        self.state = Tally(count=self.state.count + 1)
        return self.state.count


def open_tally(system: Runtime, key: str, orchestrator: ActorAddress | None = None) -> TallyHandle:
    def start() -> TallyHandle:
        config = TallyConfig(
            name="@Tally", role="Tally", tally_key=key, team_orchestrator=orchestrator
        )
        return TallyHandle(system, system.createActor(TallyService, config))

    return system.services.open(TallyService, key, start)


def test_a_team_service_reports_to_its_team_but_is_no_member() -> None:
    team = TeamHarness()
    try:
        handle = open_tally(team.system, service_key(team.orchestrator), team.orchestrator)
        assert open_tally(team.system, team.team_id, team.orchestrator) is handle
        assert team.system.ask(handle.address, "add") == 1
        team.wait_idle(10)

        assert "@Tally" not in team.roster()
        mine = handle.address.agent_id
        starts = [m for m in team.of(StartMessage) if m.sender and m.sender.agent_id == mine]
        assert [(m.member, m.sender.team_id) for m in starts] == [(False, team.team_id)]
        saved = [m for m in team.of(StateChangedMessage) if m.sender and m.sender.agent_id == mine]
        assert saved[-1].state == Tally(count=1)
    finally:
        assert team.shutdown(10)


def test_each_runtime_keeps_its_own_services() -> None:
    systems = [ActorSystem(), ActorSystem()]
    try:
        first, second = (open_tally(system, "solo") for system in systems)

        assert first.address != second.address
        assert systems[0].services.running(TallyService, "solo") is first
        assert systems[1].services.running(TallyService, "solo") is second
    finally:
        for system in systems:
            assert system.shutdown(10)


def test_a_stopped_service_is_forgotten_and_the_next_open_starts_another() -> None:
    system = ActorSystem()
    try:
        first = open_tally(system, "solo")
        assert system.stop_actor(first.address, timeout=10)

        assert system.services.running(TallyService, "solo") is None
        again = open_tally(system, "solo")
        assert again.address != first.address
        assert system.ask(again.address, "add") == 1
    finally:
        assert system.shutdown(10)


def test_a_service_takes_a_saved_state_back_only_before_its_first_change() -> None:
    system = ActorSystem()
    try:
        fresh, used = open_tally(system, "fresh"), open_tally(system, "used")
        assert system.ask(used.address, "add") == 1

        system.ask(fresh.address, "restore", Tally(count=5))
        assert system.ask(fresh.address, "get_state") == Tally(count=5)
        assert system.ask(fresh.address, "add") == 6
        with pytest.raises(
            ValueError, match=r"^@Tally already has changes; a team service is restored only before"
        ):
            system.ask(used.address, "restore", Tally(count=5))
        assert system.ask(used.address, "get_state") == Tally(count=1)
    finally:
        assert system.shutdown(10)
