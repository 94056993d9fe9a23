"""Fixtures for retinue-notes' own tests: a real team that sees this plugin and no other."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import retinue_notes.hooks
from retinue import get_plugin_manager
from retinue.testing import TeamHarness

# An agent names its scripted model by import path (`notes_scripts:scribe`), and the agent
# imports it in its own thread, so the module must be importable from anywhere.
sys.path.insert(0, str(Path(__file__).resolve().parent))


@pytest.fixture
def team() -> Iterator[TeamHarness]:
    """An orchestrator and a `@Human`; agents get this plugin's hooks and nothing else.

    Pinning the plugin manager keeps these tests independent of whatever other retinue
    plugins happen to be installed beside this one.
    """
    pm = get_plugin_manager(autoload=False, plugins=[retinue_notes.hooks])
    harness = TeamHarness(plugin_manager=pm)
    yield harness
    assert harness.shutdown(timeout=10), "an actor was still busy at the end of the test"
