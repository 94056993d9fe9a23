"""The planning plugin's tests run on `retinue.testing`: `retinue_team` sees this plugin alone."""

from __future__ import annotations

from typing import Any

import pytest
from planning_helpers import planner
from retinue import ActorAddress
from retinue.plugins import get_plugin_manager
from retinue.testing import TeamHarness
from retinue_planning import hooks


@pytest.fixture
def retinue_plugin_manager() -> Any:
    """Exactly this plugin's cards, whatever else is installed beside it."""
    return get_plugin_manager(autoload=False, plugins=[hooks])


@pytest.fixture
def lead(retinue_team: TeamHarness) -> ActorAddress:
    """@Lead, a planner, the first member of the test's team."""
    return retinue_team.add(planner("Lead"))
