"""The installed `retinue` entry points are exactly those the environment expects.

tox sets `RETINUE_EXPECTED_PLUGINS` per environment ("" for the kernel alone, "team",
"team,mailbox", ...), so a plugin that fails to install, or one that leaks into an
environment where it should be absent, breaks the build instead of silently changing what
"the kernel alone" means. Outside tox the variable is unset and the check is skipped.
Fixture distributions from other tests are on `sys.path` only while their test runs.
"""

from __future__ import annotations

import importlib.metadata
import os

import pytest
from retinue.plugins import ENTRY_POINT_GROUP, get_plugin_manager

EXPECTED_ENV = "RETINUE_EXPECTED_PLUGINS"


@pytest.fixture
def expected() -> set[str]:
    value = os.environ.get(EXPECTED_ENV)
    if value is None:
        pytest.skip(f"{EXPECTED_ENV} is not set (tox sets it per environment)")
    return {name.strip() for name in value.split(",") if name.strip()}


def test_installed_entry_points_are_exactly_the_expected_ones(expected: set[str]) -> None:
    installed = {ep.name for ep in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)}

    assert installed == expected


def test_the_plugin_manager_loads_exactly_the_expected_ones(expected: set[str]) -> None:
    # conftest.py clears the discovery controls, so this is plain autoload.
    pm = get_plugin_manager()

    loaded = {pm.get_name(plugin) for plugin, _ in pm.list_plugin_distinfo()}

    assert loaded == expected
