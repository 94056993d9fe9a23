"""The knowledge plugin's tests run on `retinue.testing`: `retinue_team` sees this plugin alone."""

from __future__ import annotations

from typing import Any

import pytest
from retinue.plugins import get_plugin_manager
from retinue_knowledge import hooks


@pytest.fixture
def retinue_plugin_manager() -> Any:
    """Exactly this plugin's cards, whatever else is installed beside it."""
    return get_plugin_manager(autoload=False, plugins=[hooks])
