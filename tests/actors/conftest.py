"""Shared fixtures for actor-runtime tests: a system with one team, torn down after."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from retinue.actors import Actor, ActorAddress, ActorSystem, BaseConfig, Message
from retinue.team import EventSubscriber, Orchestrator


class Recorder(EventSubscriber):
    """Keeps every message the orchestrator records."""

    def __init__(self) -> None:
        self.messages: list[Message] = []

    def on_message(self, message: Message) -> None:
        self.messages.append(message)

    def of(self, kind: type[Any]) -> list[Any]:
        return [m for m in self.messages if isinstance(m, kind)]


class Team:
    """A system, its orchestrator and a recorder of everything it sees."""

    def __init__(self) -> None:
        self.system = ActorSystem(ask_timeout=10)
        self.orchestrator = self.system.createActor(
            Orchestrator, BaseConfig(name="@Orchestrator", role="Orchestrator")
        )
        self.proxy: Any = self.system.proxy_ask(self.orchestrator, Orchestrator)
        self.recorder = Recorder()
        self.proxy.subscribe(self.recorder)

    def spawn(self, cls: type[Actor[Any, Any]], name: str, role: str = "Worker") -> ActorAddress:
        address: ActorAddress = self.proxy.createActor(cls, BaseConfig(name=name, role=role))
        return address


@pytest.fixture
def make_team() -> type[Team]:
    """For tests that manage the team's shutdown themselves."""
    return Team


@pytest.fixture
def team() -> Iterator[Team]:
    t = Team()
    yield t
    assert t.system.shutdown(timeout=5)
