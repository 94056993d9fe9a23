"""Fixtures for the team plugin's tests: a real actor system with only this plugin."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the scripted models, by path

import retinue_team.hooks
import team_scripted
from retinue import ActorSystem
from retinue.plugins import get_plugin_manager

SHUTDOWN_TIMEOUT = 10.0


@pytest.fixture(autouse=True)
def _fresh_records() -> Iterator[None]:
    team_scripted.reset()
    yield
    team_scripted.reset()


@pytest.fixture
def system() -> Iterator[ActorSystem]:
    """An actor system whose agents get exactly this plugin's cards (nothing discovered)."""
    pm = get_plugin_manager(autoload=False, plugins=[retinue_team.hooks])
    actor_system = ActorSystem(plugin_manager=pm, ask_timeout=10.0)
    yield actor_system
    assert actor_system.shutdown(timeout=SHUTDOWN_TIMEOUT), "an actor did not stop in time"


@pytest.fixture
def team(system: ActorSystem) -> team_scripted.Team:
    """An orchestrator and a person called @Human."""
    return team_scripted.Team.start(system)
