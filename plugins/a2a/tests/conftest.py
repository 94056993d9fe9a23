"""The A2A plugin's tests: A2A servers started by the tests on 127.0.0.1."""

from __future__ import annotations

from typing import Any

import pytest
from retinue.plugins import get_plugin_manager
from retinue_a2a import hooks


@pytest.fixture
def retinue_plugin_manager() -> Any:
    """Exactly this plugin, whatever else is installed beside it."""
    return get_plugin_manager(autoload=False, plugins=[hooks])
