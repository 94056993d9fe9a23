"""Tracing: what retinue-otel costs per hop, installed with nowhere to send spans, and recording.

The ping-pong team (window compaction on, so every hop costs the same) bounces a message N
times in three variants, interleaved in one process:

- `blocked`: the otel plugin installed but blocked (`blocked=["otel"]`), the baseline;
- `idle`: the plugin installed, with no tracer provider and no `OTEL_*` destination, which is
  what `pip install retinue-otel` alone gives: its hooks run once per agent and decide that
  nothing is traced, so agents get no turn observer and no instrumentation;
- `recording`: every span made (the turn's, pydantic-ai's run and model-request spans, their
  attributes and events, the trace context injected into each message) into an SDK provider
  whose batch processor hands them to an exporter that drops them: the cost of tracing
  itself, the network left out;
- `turns`: the same with retinue's turn spans only (`instrument_pydantic_ai=False`), which
  splits that cost between the plugin's own spans and pydantic-ai's instrumentation.

Per variant: wall ms per hop (the median interval between model calls) and CPU ms per hop
(the process's CPU time over the run, every thread, divided by the hops), each as a ratio to
the baseline. CPU is the steadier figure on a shared machine.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from typing import Any

from benchmarks import scripts
from benchmarks.cases.pingpong import CONTEXT_LENGTH, WINDOW
from benchmarks.measure import BenchTeam, agent_card, intervals, median
from benchmarks.suite import Case, CaseResult, Scale, Table, Target, ratio

# Many short rounds, interleaved, rather than a few long ones: the differences measured are
# small, and a shared machine drifts over minutes.
HOPS: dict[str, int] = {"full": 500, "quick": 200, "tiny": 12}
REPEATS: dict[str, int] = {"full": 8, "quick": 4, "tiny": 1}
VARIANTS = ("blocked", "idle", "turns", "recording")
LABELS = {
    "blocked": "plugin blocked (baseline)",
    "idle": "installed, nowhere to export",
    "turns": "recording turn spans only (no pydantic-ai spans)",
    "recording": "recording every span (exporter drops them)",
}


def otel_installed() -> bool:
    from retinue.plugins import get_plugin_manager

    return any(name == "otel" for name, _ in get_plugin_manager().list_name_plugin())


def _recording_plugin(instrument_pydantic_ai: bool) -> Any:
    """A `Tracing` on an SDK provider whose exporter receives every span and drops it."""
    from opentelemetry.sdk.trace import ReadableSpan, TracerProvider
    from opentelemetry.sdk.trace.export import (
        BatchSpanProcessor,
        SpanExporter,
        SpanExportResult,
    )
    from retinue_otel import Tracing

    class Dropping(SpanExporter):
        def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
            return SpanExportResult.SUCCESS

    provider = TracerProvider()
    provider.add_span_processor(BatchSpanProcessor(Dropping()))
    return Tracing(tracer_provider=provider, instrument_pydantic_ai=instrument_pydantic_ai)


def _per_hop(hops: int, variant: str) -> tuple[float, float]:
    """Wall and CPU ms per hop of one ping-pong run in `variant`."""
    if variant in ("turns", "recording"):
        plugin = _recording_plugin(instrument_pydantic_ai=variant == "recording")
        team = BenchTeam(blocked=("otel",), extra=[plugin])
    else:
        team = BenchTeam(blocked=("otel",) if variant == "blocked" else ())
    try:
        options: dict[str, Any] = {"window": WINDOW, "context_length": CONTEXT_LENGTH}
        ping = team.add(agent_card("Player", "bounce", name="@Ping", **options))
        team.add(agent_card("Player", "bounce", name="@Pong", **options))
        team.wait_idle()
        team.say(ping, "hop 0/2")  # warm-up: each agent builds its pydantic-ai Agent
        team.wait_idle()
        scripts.reset()
        cpu = time.process_time()
        team.say(ping, f"hop 0/{hops}")
        team.wait_idle()
        cpu_ms = 1e3 * (time.process_time() - cpu) / hops
        return 1e3 * median(intervals(list(scripts.CALLS))), cpu_ms
    finally:
        team.shutdown()


def run(scale: Scale) -> CaseResult:
    result = CaseResult(case="otel", scale=scale)
    variants: tuple[str, ...] = VARIANTS
    if not otel_installed():
        result.notes.append("retinue-otel is not installed: only the baseline ran.")
        variants = ("blocked",)
    # `idle` means what it says: no destination from the environment of this run.
    for name in [n for n in os.environ if n.startswith("OTEL_")]:
        del os.environ[name]
    hops, repeats = HOPS[scale], REPEATS[scale]
    wall: dict[str, list[float]] = {variant: [] for variant in variants}
    cpu: dict[str, list[float]] = {variant: [] for variant in variants}
    for _ in range(repeats):  # interleaved, so drift hits every variant alike
        for variant in variants:
            hop_wall, hop_cpu = _per_hop(hops, variant)
            wall[variant].append(hop_wall)
            cpu[variant].append(hop_cpu)
    table = Table(
        f"Per hop of the ping-pong team, {hops:,} hops"
        + (f" (median of {repeats} interleaved runs)" if repeats > 1 else ""),
        ["variant", "wall ms/hop", "vs blocked", "CPU ms/hop", "vs blocked"],
    )
    base_wall, base_cpu = median(wall["blocked"]), median(cpu["blocked"])
    for variant in variants:
        hop_wall, hop_cpu = median(wall[variant]), median(cpu[variant])
        table.add(
            LABELS[variant],
            hop_wall,
            ratio(hop_wall / base_wall),
            hop_cpu,
            ratio(hop_cpu / base_cpu),
        )
        result.metrics[f"otel.{variant}.wall_ms_per_hop"] = hop_wall
        result.metrics[f"otel.{variant}.cpu_ms_per_hop"] = hop_cpu
        result.metrics[f"otel.{variant}.cpu_ratio"] = hop_cpu / base_cpu
    result.tables.append(table)
    if len(variants) == 1:
        return result
    result.targets += [
        Target(
            "installed, nowhere to export, CPU per hop vs blocked",
            median(cpu["idle"]) / base_cpu,
            1.05,
            "x",
        ),
        Target(
            "recording turn spans only, CPU per hop vs blocked",
            median(cpu["turns"]) / base_cpu,
            1.1,
            "x",
        ),
        Target(
            "recording every span, CPU per hop vs blocked",
            median(cpu["recording"]) / base_cpu,
            1.5,
            "x",
        ),
    ]
    result.notes.append(
        "A hop is one model call and the message it sends (a turn of @Ping or @Pong); the "
        "models answer at once, so what is left is the framework, and with tracing the spans. "
        "Recording makes three spans a hop: the turn, pydantic-ai's run and its model request "
        "(the export itself, a backend's business, is left out)."
    )
    return result


CASE = Case("otel", "Tracing with retinue-otel: cost per hop, idle and recording", run, order=67)
