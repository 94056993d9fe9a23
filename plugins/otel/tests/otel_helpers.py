"""Reading what an in-memory exporter got as a tree, and a team traced into it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from otel_hiring import hiring
from retinue import get_plugin_manager
from retinue.testing import TeamHarness
from retinue_otel import Tracing


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


def traced_team(spans: Spans, **tracing: Any) -> TeamHarness:
    """A team whose agents see this plugin (on `spans`) and the hiring stand-in, nothing else."""
    plugin = Tracing(tracer_provider=spans.provider, **tracing)
    return TeamHarness(plugin_manager=get_plugin_manager(autoload=False, plugins=[plugin, hiring]))
