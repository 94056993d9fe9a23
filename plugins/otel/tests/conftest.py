"""The otel plugin's tests: teams traced into an in-memory exporter, read back as a tree."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from retinue import get_plugin_manager
from retinue.testing import TeamHarness
from retinue_otel import Tracing

# Scripts named by import path (`otel_scripts:...`) are imported in the agents' threads.
sys.path.insert(0, str(Path(__file__).resolve().parent))

from hiring import hiring


@dataclass
class Spans:
    """A tracer provider exporting into memory, and what it received."""

    provider: TracerProvider
    exporter: InMemorySpanExporter

    def finished(self) -> list[ReadableSpan]:
        return list(self.exporter.get_finished_spans())

    def named(self, prefix: str) -> list[ReadableSpan]:
        return [span for span in self.finished() if span.name.startswith(prefix)]

    def children(self, span: ReadableSpan) -> list[ReadableSpan]:
        """The spans whose parent is `span`, oldest first."""
        return sorted(
            (s for s in self.finished() if s.parent is not None and s.parent.span_id == _id(span)),
            key=lambda s: s.start_time or 0,
        )

    def roots(self) -> list[ReadableSpan]:
        return [span for span in self.finished() if span.parent is None]

    def tree(self, span: ReadableSpan, prefix: str = "") -> list[Any]:
        """`[name, [children...]]` of `span`, keeping only children named with `prefix`."""
        kept = [c for c in self.children(span) if c.name.startswith(prefix)]
        return [span.name, [self.tree(child, prefix) for child in kept]]


def _id(span: ReadableSpan) -> int:
    assert span.context is not None
    return span.context.span_id


@pytest.fixture
def spans() -> Iterator[Spans]:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    yield Spans(provider, exporter)
    provider.shutdown()


def traced_team(spans: Spans, **tracing: Any) -> TeamHarness:
    """A team whose agents see this plugin (on `spans`) and the hiring stand-in, nothing else."""
    plugin = Tracing(tracer_provider=spans.provider, **tracing)
    return TeamHarness(plugin_manager=get_plugin_manager(autoload=False, plugins=[plugin, hiring]))


@pytest.fixture
def team(spans: Spans) -> Iterator[TeamHarness]:
    harness = traced_team(spans)
    yield harness
    assert harness.shutdown(timeout=10), "an actor was still busy at the end of the test"
