"""Real exports: OTLP/HTTP to a receiver on 127.0.0.1, and the console, set up by `OTEL_*`."""

from __future__ import annotations

import json
import logging
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
from opentelemetry.sdk.trace.export import BatchSpanProcessor
from opentelemetry.trace import format_span_id, format_trace_id
from otel_helpers import Spans, traced_team
from otel_quickstart import REQUEST, start_quickstart
from otel_receiver import ReceivedSpan, otlp_receiver
from retinue_otel.providers import provider_from_env

HERE = Path(__file__).resolve().parent


def tree(spans: list[ReceivedSpan]) -> list[tuple[str, str]]:
    """(span, parent) names of retinue's spans, in start order of the receiver's list."""
    names = {span.span_id: span.name for span in spans}
    return sorted(
        (span.name, names.get(span.parent_span_id, ""))
        for span in spans
        if span.name.startswith(("agent turn", "request from"))
    )


def test_an_otlp_http_export_receives_the_same_spans_as_memory(spans: Spans) -> None:
    with otlp_receiver() as receiver:
        exporter = OTLPSpanExporter(endpoint=f"{receiver.endpoint}/v1/traces")
        spans.provider.add_span_processor(BatchSpanProcessor(exporter))
        team = traced_team(spans)
        try:
            team.say(start_quickstart(team), REQUEST)
            team.wait_idle()
        finally:
            assert team.shutdown(timeout=10)
        assert spans.provider.force_flush(10_000)
        received = receiver.spans()

    in_memory = {
        (
            format_trace_id(span.context.trace_id),  # type: ignore[union-attr]
            format_span_id(span.context.span_id),  # type: ignore[union-attr]
            format_span_id(span.parent.span_id) if span.parent else "",
            span.name,
        )
        for span in spans.finished()
    }
    over_the_wire = {
        (span.trace_id, span.span_id, span.parent_span_id, span.name) for span in received
    }
    assert over_the_wire == in_memory
    assert all(kind == "application/x-protobuf" for kind in receiver.content_types)
    turns = [span for span in received if span.name.startswith("agent turn")]
    assert len(turns) == 3
    assert all(
        int(str(span.attributes["gen_ai.aggregated_usage.input_tokens"])) > 0 for span in turns
    )


def run_script(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    """`otel_traced_script.py` in a fresh interpreter, with discovery and these variables."""
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("OTEL_", "RETINUE_DISABLE"))}
    done = subprocess.run(
        [sys.executable, str(HERE / "otel_traced_script.py"), *args],
        env={**clean, "NO_PROXY": "127.0.0.1", **env},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "transcript: ['@Manager', '@Developer', '@Manager', '@Human']" in done.stdout
    return done


def test_the_otel_variables_alone_export_a_script_over_otlp_http_and_to_the_console() -> None:
    with otlp_receiver() as receiver:
        done = run_script(
            {
                "OTEL_TRACES_EXPORTER": "otlp,console",
                "OTEL_EXPORTER_OTLP_ENDPOINT": receiver.endpoint,
                "OTEL_SERVICE_NAME": "sprint-team",
            }
        )  # the plugin's provider flushes when the interpreter exits
        received = receiver.spans()

    assert tree(received) == sorted(
        [
            ("request from @Human", ""),
            ("agent turn @Manager", "request from @Human"),
            ("agent turn @Developer", "agent turn @Manager"),
            ("agent turn @Manager", "agent turn @Developer"),
        ]
    )
    assert {span.service for span in received} == {"sprint-team"}
    assert len({span.trace_id for span in received}) == 1
    assert any(span.name.startswith("chat quickstart:") for span in received)
    # The console printed the same spans, one JSON object each, as they ended, on stderr.
    printed = [json.loads(block) for block in _json_blocks(done.stderr)]
    assert sorted(span["context"]["span_id"] for span in printed) == sorted(
        f"0x{span.span_id}" for span in received
    )
    assert _json_blocks(done.stdout) == []  # stdout stays the script's own


def test_an_applications_own_provider_gets_the_spans_as_logfire_would() -> None:
    done = run_script({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:9"}, "--app-provider")

    printed = [json.loads(block) for block in _json_blocks(done.stdout)]
    assert sum(span["name"].startswith("agent turn") for span in printed) == 3
    assert {span["resource"]["attributes"]["service.name"] for span in printed} == {"the-app"}


def _json_blocks(text: str) -> list[str]:
    """The console exporter writes each span as an indented JSON object from `{` to `}`."""
    blocks, current = [], []
    for line in text.splitlines():
        if line == "{":
            current = [line]
        elif current:
            current.append(line)
            if line == "}":
                blocks.append("\n".join(current))
                current = []
    return blocks


def test_a_backend_that_stops_answering_is_one_warning_and_its_return_one_line(
    monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    with socket.socket() as probe:  # a port of 127.0.0.1 nobody listens on, until later
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    endpoint = f"http://127.0.0.1:{port}"
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_ENDPOINT", endpoint)
    monkeypatch.setenv("OTEL_EXPORTER_OTLP_TIMEOUT", "1")
    provider = provider_from_env(os.environ)
    assert provider is not None
    tracer = provider.get_tracer("outage")

    def one_batch(name: str) -> None:
        with tracer.start_as_current_span(name):
            pass
        provider.force_flush(10_000)

    with caplog.at_level(logging.INFO):
        for batch in ("down 1", "down 2", "down 3"):
            one_batch(batch)
        with otlp_receiver(port) as receiver:
            one_batch("back")
            received = [span.name for span in receiver.spans()]
        provider.shutdown()

    lines = [(r.name, r.levelname, r.getMessage()) for r in caplog.records]
    assert [line for line in lines if line[0].startswith("opentelemetry")] == []
    ours = [(level, text) for name, level, text in lines if name == "retinue_otel"]
    assert [level for level, _ in ours] == ["WARNING", "INFO"]
    assert ours[0][1].startswith(
        f"OTLP export to {endpoint} failed, so spans are dropped until it answers again: "
    )
    assert ours[1][1] == (
        f"OTLP export to {endpoint} answers again; 3 batches of spans were dropped meanwhile"
    )
    assert received == ["back"]
