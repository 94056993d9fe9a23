"""The harness tests see no plugin at all, so they read the same in every tox environment."""

from __future__ import annotations

from typing import Any

import pytest
from retinue.plugins import get_plugin_manager


@pytest.fixture
def retinue_plugin_manager() -> Any:
    """The kernel alone: no card is added to the agents these tests start."""
    return get_plugin_manager(autoload=False)
