"""The web search plugin's tests run on `retinue.testing`: `retinue_team` sees this plugin alone."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from retinue.plugins import get_plugin_manager
from retinue_web_search import hooks
from web_search_fakes import FakeServer

BACKEND_VARIABLES = ("BRAVE_API_KEY", "TAVILY_API_KEY", "SEARXNG_URL")


@pytest.fixture
def retinue_plugin_manager() -> Any:
    """Exactly this plugin's cards, whatever else is installed beside it."""
    return get_plugin_manager(autoload=False, plugins=[hooks])


@pytest.fixture(autouse=True)
def no_backend(monkeypatch: pytest.MonkeyPatch) -> None:
    """No search backend from the machine's environment: each test sets the one it fakes."""
    for name in BACKEND_VARIABLES:
        monkeypatch.delenv(name, raising=False)


@pytest.fixture
def servers() -> Iterator[list[FakeServer]]:
    """The fake servers a test starts (`FakeServer.start`), closed after it."""
    started: list[FakeServer] = []
    yield started
    for server in started:
        server.close()
