"""Fixtures for retinue-notes's tests: real teams that see this plugin and no other."""

from __future__ import annotations

import pluggy
import pytest
import retinue_notes.hooks
from retinue import get_plugin_manager


@pytest.fixture
def retinue_plugin_manager() -> pluggy.PluginManager:
    """The plugins of the teams `retinue_team` (retinue's pytest plugin) starts: this one.

    Pinning it keeps these tests independent of whatever other retinue plugins are
    installed beside this one.
    """
    return get_plugin_manager(autoload=False, plugins=[retinue_notes.hooks])
