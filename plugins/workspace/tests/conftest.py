"""The workspace plugin's tests run on `retinue.testing`: `retinue_team` sees this plugin alone."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from retinue import ActorAddress
from retinue.plugins import get_plugin_manager
from retinue.testing import TeamHarness
from retinue_workspace import hooks
from workspace_scripts import workspace_card


@pytest.fixture
def retinue_plugin_manager() -> Any:
    """Exactly this plugin's cards, whatever else is installed beside it."""
    return get_plugin_manager(autoload=False, plugins=[hooks])


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A directory beside the workspace holding a secret; tests check it is never touched."""
    place = tmp_path / "outside"
    place.mkdir()
    (place / "secret.txt").write_text("the secret\n")
    return place


@pytest.fixture
def root(tmp_path: Path) -> Path:
    """Where the workspace lives (created by the workspace itself on first use)."""
    return tmp_path / "ws"


@pytest.fixture
def clerk(retinue_team: TeamHarness, root: Path) -> ActorAddress:
    """@Clerk, on `follow`, carrying a workspace at `root`."""
    return retinue_team.add(workspace_card("Clerk", root))


@pytest.fixture
def command(retinue_team: TeamHarness, clerk: ActorAddress) -> Callable[[str], str]:
    """A slash command an operator gives @Clerk, and its answer."""
    return lambda text: retinue_team.command(clerk, text, timeout=20)
