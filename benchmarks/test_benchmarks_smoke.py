"""Smoke test of the benchmark suite: every case runs at its tiniest and reports sane numbers.

No timing is asserted (machines are noisy; the figures are for reading): only that each case
runs to the end and returns well-formed tables, finite metrics and targets. Run it with
`pytest benchmarks/test_benchmarks_smoke.py` (it is not in the default `tests/` run).
"""

from __future__ import annotations

import math

import pytest

from benchmarks.cases import discover
from benchmarks.run import main as run_main
from benchmarks.suite import CaseResult, render_result

EXPECTED = {
    "pingpong",
    "spawn",
    "imports",
    "fanout",
    "context_updates",
    "mailbox",
    "memory",
    "team_size",
    "planning",
    "record",
    "otel",
    "shutdown",
    "team_scale",
}
CASES = discover()


def test_every_case_is_discovered() -> None:
    assert set(CASES) >= EXPECTED


@pytest.mark.parametrize("name", list(CASES))
def test_case_runs_tiny_and_reports_numbers(name: str) -> None:
    result = CASES[name].run("tiny")

    assert result.case == name
    assert result.scale == "tiny"
    assert result.tables, "a case prints at least one table"
    for table in result.tables:
        assert table.rows, f"{table.title}: no rows"
        for row in table.rows:
            assert len(row) == len(table.columns)
            for cell in row:
                if isinstance(cell, float):
                    assert math.isfinite(cell), f"{table.title}: {row}"
    assert result.metrics, "a case reports its key figures as metrics"
    for key, value in result.metrics.items():
        assert isinstance(value, float | int) and math.isfinite(value), f"{key} = {value!r}"
    for target in result.targets:
        assert math.isfinite(target.value) and target.limit > 0, target
    again = CaseResult.from_json(result.to_json())
    assert again == result
    assert render_result(again)


def test_runner_lists_the_cases(capsys: pytest.CaptureFixture[str]) -> None:
    assert run_main(["--list"]) == 0
    listed = capsys.readouterr().out
    for name in CASES:
        assert name in listed


def test_the_handover_measure_reports_every_variant_and_a_round_trip() -> None:
    from benchmarks import handover

    measured, trip = handover.measure(handover.SHORT + 4)

    assert list(measured) == ["bare pydantic-ai", "retinue ReactAgent alone", "retinue + plugins"]
    for usage in (*measured.values(), trip):  # differences of two runs: only their form
        assert all(math.isfinite(v) for v in (usage.wall, usage.user, usage.system))
        assert isinstance(usage.switches, int)
    assert trip.wall > 0
    assert "hand-over round trip" in handover.render(handover.SHORT + 4, measured, trip)
