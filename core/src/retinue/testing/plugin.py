"""retinue's pytest plugin for its users and plugin authors; opt-in, never auto-loaded.

A project asks for it in its top-level `conftest.py` (`pytest_plugins =
["retinue.testing.plugin"]`) or with `-p retinue.testing.plugin`: switching real model
requests off is right for a test suite that chose it, and wrong for every other project
that merely has retinue installed.

- No real model request leaves a test by accident; tests marked `integration` may make them.
- `retinue_team`: a real team (orchestrator and `@Human`) that is shut down after the test.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from retinue.testing.team import TeamHarness


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "integration: talks to a real model provider; needs an API key"
    )


@pytest.fixture(autouse=True)
def _retinue_block_model_requests(request: pytest.FixtureRequest) -> Iterator[None]:
    """Refuse real model requests outside integration tests."""
    from pydantic_ai import models

    allowed = request.node.get_closest_marker("integration") is not None
    previous = models.ALLOW_MODEL_REQUESTS
    models.ALLOW_MODEL_REQUESTS = allowed
    try:
        yield
    finally:
        models.ALLOW_MODEL_REQUESTS = previous


@pytest.fixture
def retinue_plugin_manager() -> Any:
    """The plugin manager `retinue_team` uses; None discovers the installed plugins.

    Override it in a plugin's conftest to pin exactly the plugins a test should see.
    """
    return None


class RetinueHookspecs:
    """The pytest hook a runtime's own pytest plugin implements."""

    @pytest.hookspec(firstresult=True)
    def pytest_retinue_cluster(self, request: pytest.FixtureRequest) -> Any:
        """The `Cluster` the test's `retinue_team` runs on (None: every actor in this process).

        retinue-ray's plugin (`-p retinue_ray.testing`) answers with two Ray hosts, so a
        suite written for one process runs unchanged on that runtime.
        """


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    pluginmanager.add_hookspecs(RetinueHookspecs)


@pytest.fixture
def retinue_cluster(request: pytest.FixtureRequest) -> Any:
    """The `Cluster` `retinue_team` runs on: what a runtime's plugin answers to the
    `pytest_retinue_cluster` hook; None (no such plugin): every actor in this process."""
    return request.config.hook.pytest_retinue_cluster(request=request)


@pytest.fixture
def retinue_team(retinue_plugin_manager: Any, retinue_cluster: Any) -> Iterator[TeamHarness]:
    """A running team with an orchestrator and a `@Human`; shut down afterwards."""
    from retinue.testing.team import TeamHarness

    team = TeamHarness(plugin_manager=retinue_plugin_manager, cluster=retinue_cluster)
    try:
        yield team
    finally:
        assert team.shutdown(timeout=10), "an actor was still stuck at the end of the test"
