"""Fixtures for the llm tests: an event recorder and a runner over a scripted model."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from retinue.llm import ReactAgent, RunnerConfig

from tests.llm.scripted import Script


class Events(list[Any]):
    """An event sink that keeps everything, with a filter by type."""

    def of(self, kind: type[Any]) -> list[Any]:
        return [event for event in self if isinstance(event, kind)]


@pytest.fixture
def events() -> Events:
    return Events()


@pytest.fixture
def make_agent(events: Events) -> Callable[..., ReactAgent]:
    """A `ReactAgent` over `script` (a fresh `Script()` if none), reporting into `events`."""

    def build(script: Script | None = None, **kwargs: Any) -> ReactAgent:
        model = (script or Script()).model
        kwargs.setdefault("event_sink", events.append)
        return ReactAgent(kwargs.pop("name", "tester"), RunnerConfig(model=model, **kwargs))

    return build
