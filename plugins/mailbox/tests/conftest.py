"""Fixtures for the mailbox plugin's tests: a real actor system with only this plugin."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the scripted models, by path

import mailbox_scripted
import retinue_mailbox.hooks
from retinue import ActorSystem
from retinue.plugins import get_plugin_manager


@pytest.fixture(autouse=True)
def _fresh_records() -> Iterator[None]:
    mailbox_scripted.reset()
    yield
    mailbox_scripted.reset()


@pytest.fixture
def system() -> Iterator[ActorSystem]:
    """An actor system whose agents get exactly this plugin's cards (nothing discovered)."""
    pm = get_plugin_manager(autoload=False, plugins=[retinue_mailbox.hooks])
    actor_system = ActorSystem(plugin_manager=pm, ask_timeout=10.0)
    yield actor_system
    assert actor_system.shutdown(timeout=10.0), "an actor did not stop in time"


@pytest.fixture
def team(system: ActorSystem) -> mailbox_scripted.Team:
    """An orchestrator and a person called @Human."""
    return mailbox_scripted.Team.start(system)
