"""`PublishingService`: a team service whose state is read from its publication, never asked.

Real actor systems and a real team (`TeamHarness`); the service is a counter.
"""

from __future__ import annotations

import pytest
from retinue import ActorAddress, ActorSystem, Runtime, StateChangedMessage, remote
from retinue.kit import (
    Published,
    PublishedHandle,
    PublishingService,
    TeamServiceConfig,
    VersionedState,
    open_published,
    service_key,
)
from retinue.testing import TeamHarness


class Count(VersionedState):
    total: int = 0


class CountConfig(TeamServiceConfig):
    name: str = "@Count"
    role: str = "Count"
    count_key: str = ""


class CountService(PublishingService[CountConfig, Count]):
    @property
    def service_key(self) -> str:
        return self.config.count_key

    def default_state(self) -> Count:
        return Count()

    @remote
    def add(self, amount: int) -> int:
        state = self.state
        self.publish_state(Count(version=state.version + 1, total=state.total + amount))
        return self.state.total


CountHandle = PublishedHandle[CountService, Count]


def open_count(system: Runtime, key: str, orchestrator: ActorAddress | None = None) -> CountHandle:
    config = CountConfig(count_key=key, team_orchestrator=orchestrator)
    return open_published(system, CountService, key, config, PublishedHandle)


def test_a_change_is_read_from_the_publication_and_checkpointed() -> None:
    team = TeamHarness()
    try:
        handle = open_count(team.system, service_key(team.orchestrator), team.orchestrator)
        assert open_count(team.system, team.team_id, team.orchestrator) is handle
        assert handle.current == Count()

        assert handle.proxy(10).add(5) == 5
        assert handle.current == Count(version=1, total=5)  # no ask: the publication
        team.wait_idle(10)

        mine = handle.address.agent_id
        saved = [m for m in team.of(StateChangedMessage) if m.sender and m.sender.agent_id == mine]
        assert saved[-1].state == handle.current
        assert "@Count" not in team.roster()
    finally:
        assert team.shutdown(10)


def test_a_restored_state_is_published_and_refused_after_the_first_change() -> None:
    system = ActorSystem()
    try:
        fresh, used = open_count(system, "fresh"), open_count(system, "used")
        used.proxy(10).add(1)

        fresh.proxy(10).restore(Count(version=4, total=9))
        assert fresh.current == Count(version=4, total=9)
        with pytest.raises(ValueError, match=r"^@Count already has 1 change; a team service"):
            used.proxy(10).restore(Count(version=4, total=9))
        assert used.current == Count(version=1, total=1)
    finally:
        assert system.shutdown(10)


def test_a_publication_never_goes_back_a_version() -> None:
    published = Published(Count(version=2))

    with pytest.raises(ValueError, match=r"^version 1 is older than the published 2$"):
        published.publish(Count(version=1))
    published.publish(Count(version=3, total=1))
    assert published.current == Count(version=3, total=1)


def test_a_service_that_gives_another_handle_is_one_clear_error() -> None:
    class Other(PublishedHandle[CountService, Count]):
        pass

    system = ActorSystem()
    try:
        config = CountConfig(count_key="solo")
        with pytest.raises(RuntimeError, match=r"^CountService gave no Other to use it by$"):
            open_published(system, CountService, "solo", config, Other)
    finally:
        assert system.shutdown(10)
