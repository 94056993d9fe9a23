"""The usage ledger keeps lifetime totals without keeping every event."""

from __future__ import annotations

from pydantic_ai.messages import ModelResponse, TextPart
from retinue.llm.events import (
    LlmUsageEvent,
    ModelMessageEvent,
    RunFinishedEvent,
    RunStartedEvent,
    ToolCallEvent,
)
from retinue.llm.usage import UsageLedger, aggregate_usage


def _run(i: int) -> list[object]:
    run_id = f"run-{i}"
    return [
        RunStartedEvent(agent_name="@A", run_id=run_id, kind="run"),
        ToolCallEvent(agent_name="@A", run_id=run_id, tool_name="ping", args={}, tool_call_id="t"),
        LlmUsageEvent(
            agent_name="@A",
            run_id=run_id,
            model_name="m",
            requests=1,
            input_tokens=3,
            output_tokens=2,
            total_tokens=5,
            cost_usd=None,
        ),
    ]


def test_totals_are_lifetime_and_the_breakdown_is_bounded() -> None:
    ledger = UsageLedger(keep_runs=10)
    events = [e for i in range(50) for e in _run(i)]
    for event in events:
        ledger.add(event)
    summary = ledger.summary(by_run=True)
    assert (summary.runs, summary.requests, summary.tool_calls, summary.total_tokens) == (
        50,
        50,
        50,
        250,
    )
    assert summary.cost_usd is None
    assert summary.by_run is not None
    assert list(summary.by_run) == [f"run-{i}" for i in range(40, 50)]
    assert ledger.summary().by_run is None
    # The same events folded at once give the same totals.
    assert aggregate_usage(events).model_dump(exclude={"by_run"}) == summary.model_dump(
        exclude={"by_run"}
    )


def test_only_usage_events_count_a_run() -> None:
    """A run's messages and its end name it too; restored from them alone, no run ran."""
    message = ModelResponse(parts=[TextPart("hello")])
    recorded: list[object] = [
        ModelMessageEvent(agent_name="@A", run_id=f"run-{i}", message=message) for i in range(3)
    ]
    recorded.append(RunFinishedEvent(agent_name="@A", run_id="run-0", status="completed"))
    summary = UsageLedger.from_events(recorded).summary(by_run=True)
    assert (summary.runs, summary.requests, summary.by_run) == (0, 0, {})
    # The same runs with their usage count once each, whatever else names them.
    summary = aggregate_usage([*recorded, *(e for i in range(3) for e in _run(i))])
    assert (summary.runs, summary.requests, summary.tool_calls) == (3, 3, 3)
