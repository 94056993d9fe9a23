"""The pytest plugin retinue installs: no real model request leaves a test by accident.

Tests marked `integration` talk to real providers and may make requests.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest


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
