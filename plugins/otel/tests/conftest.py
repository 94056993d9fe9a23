"""The otel plugin's tests: teams traced into an in-memory exporter, read back as a tree."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from otel_helpers import Spans, traced_team
from retinue.testing import TeamHarness


@pytest.fixture
def spans() -> Iterator[Spans]:
    """A tracer provider exporting into memory, shut down after the test."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    yield Spans(provider, exporter)
    provider.shutdown()


@pytest.fixture
def team(spans: Spans) -> Iterator[TeamHarness]:
    """A team traced into `spans`, with the hiring stand-in and no other plugin."""
    harness = traced_team(spans)
    yield harness
    assert harness.shutdown(timeout=10), "an actor was still busy at the end of the test"
