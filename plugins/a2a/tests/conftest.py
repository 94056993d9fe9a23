"""The A2A plugin's tests: A2A servers started by the tests on 127.0.0.1."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from a2a_helpers import free_port, serving
from plain_agent import PlainExecutor, plain_app
from retinue.plugins import get_plugin_manager
from retinue_a2a import hooks


@pytest.fixture
def retinue_plugin_manager() -> Any:
    """Exactly this plugin, whatever else is installed beside it."""
    return get_plugin_manager(autoload=False, plugins=[hooks])


@pytest.fixture
def plain() -> Iterator[tuple[str, PlainExecutor]]:
    """A plain a2a-sdk agent (`PlainExecutor`) served on 127.0.0.1: its URL and executor."""
    executor = PlainExecutor()
    port = free_port()
    with serving(plain_app(executor, f"http://127.0.0.1:{port}/"), port) as url:
        yield url, executor
