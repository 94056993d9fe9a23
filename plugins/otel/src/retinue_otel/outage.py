"""One log line per OTLP outage, not two per batch.

While a backend does not answer, OpenTelemetry's OTLP exporters log a warning and an error
for every batch they fail to send: a team that runs for an hour with its collector down
fills the log with them. The exporter the plugin builds from the environment is wrapped so
that an outage is one WARNING (with the exporter's own reason) when the first batch fails,
and one INFO, with the count of batches dropped, when a batch goes through again. The
exporter's own lines about the batches are held back only while they are this wrapper's
export's; an application's own exporters log as they always do.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING

from opentelemetry.sdk.trace.export import SpanExporter, SpanExportResult

if TYPE_CHECKING:
    from opentelemetry.sdk.trace import ReadableSpan

logger = logging.getLogger("retinue_otel")

#: The loggers of the OTLP span exporters (HTTP, gRPC) whose per-batch lines are held back.
EXPORTER_LOGGERS = (
    "opentelemetry.exporter.otlp.proto.http.trace_exporter",
    "opentelemetry.exporter.otlp.proto.grpc.exporter",
)


class _HeldBack(logging.Filter):
    """Keeps the records an exporter logs inside `OutageLoggedExporter.export`."""

    def __init__(self) -> None:
        super().__init__()
        self.local = threading.local()

    def filter(self, record: logging.LogRecord) -> bool:
        held: list[logging.LogRecord] | None = getattr(self.local, "held", None)
        if held is None:
            return True  # not one of ours: logged as usual
        held.append(record)
        return False


_HOLD = _HeldBack()
for _name in EXPORTER_LOGGERS:
    logging.getLogger(_name).addFilter(_HOLD)


class OutageLoggedExporter(SpanExporter):
    """Exports through `inner`, telling of an outage once when it starts and once when it ends."""

    def __init__(self, inner: SpanExporter, where: str) -> None:
        self._inner = inner
        self._where = where
        self._dropped = 0  # batches failed in the current outage (0: none going on)

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        held: list[logging.LogRecord] = []
        _HOLD.local.held = held
        try:
            result = self._inner.export(spans)
        finally:
            _HOLD.local.held = None
        if result is SpanExportResult.SUCCESS:
            if self._dropped:
                logger.info(
                    "OTLP export to %s answers again; %d batches of spans were dropped meanwhile",
                    self._where,
                    self._dropped,
                )
                self._dropped = 0
            return result
        if not self._dropped:
            reason = held[0].getMessage().splitlines()[0] if held else "the export failed"
            logger.warning(
                "OTLP export to %s failed, so spans are dropped until it answers again: %s",
                self._where,
                reason,
            )
        self._dropped += 1
        return result

    def shutdown(self) -> None:
        self._inner.shutdown()

    def force_flush(self, timeout_millis: int = 30_000) -> bool:
        return self._inner.force_flush(timeout_millis)
