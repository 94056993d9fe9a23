"""The two usage tiers: distinct errors, counted before a run, restored from events."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from pydantic_ai.messages import TextPart, ToolCallPart
from pydantic_ai.usage import RequestUsage
from retinue.llm import (
    AgentUsageLimitError,
    AgentUsageLimits,
    LlmUsageEvent,
    ReactAgent,
    RunStartedEvent,
    RunUsageLimitError,
    RunUsageLimits,
    ToolCallEvent,
    UsageLimitError,
    aggregate_usage,
)

from tests.llm.conftest import Events
from tests.llm.scripted import Script, assert_valid_history, call

MakeAgent = Callable[..., ReactAgent]


def lookup(key: str) -> str:
    """Look something up."""
    return f"value of {key}"


def looping() -> Script:
    """A model that never stops calling a tool."""
    return Script(default=call("lookup", key="again"))


# ---------------------------------------------------------------- run tier


def test_run_tier_by_requests(make_agent: MakeAgent, events: Events) -> None:
    script = looping()
    agent = make_agent(script, tools=[lookup], run_usage_limits=RunUsageLimits(run_request_limit=3))
    with pytest.raises(RunUsageLimitError, match="request_limit of 3") as exc:
        agent.run_sync("loop forever", str)
    assert not isinstance(exc.value, AgentUsageLimitError)
    assert isinstance(exc.value, UsageLimitError)
    assert script.requests == 3
    assert_valid_history(agent.messages)  # what the run did is kept, and still valid
    assert events.of(ToolCallEvent)
    script.default = [TextPart("recovered")]
    assert agent.run_sync("and now?", str) == "recovered"  # the next run starts afresh


def test_run_tier_by_tool_calls(make_agent: MakeAgent) -> None:
    two_calls = [ToolCallPart("lookup", {"key": "a"}), ToolCallPart("lookup", {"key": "b"})]
    script = Script(steps=[two_calls, two_calls])
    limits = RunUsageLimits(tool_calls_limit=3)
    agent = make_agent(script, tools=[lookup], run_usage_limits=limits)
    with pytest.raises(RunUsageLimitError, match="tool_calls_limit"):
        agent.run_sync("call tools", str)
    assert_valid_history(agent.messages)


def test_run_tier_by_tokens(make_agent: MakeAgent) -> None:
    script = Script(usage=RequestUsage(input_tokens=400, output_tokens=200))
    agent = make_agent(script, run_usage_limits=RunUsageLimits(total_tokens_limit=500))
    with pytest.raises(RunUsageLimitError, match="total_tokens_limit"):
        agent.run_sync("say a lot", str)


def test_run_counts_reset_every_run(make_agent: MakeAgent) -> None:
    script = Script(steps=[call("lookup", key="a"), [TextPart("one")], call("lookup", key="b")])
    agent = make_agent(script, tools=[lookup], run_usage_limits=RunUsageLimits(tool_calls_limit=1))
    assert agent.run_sync("first", str) == "one"
    assert agent.run_sync("second", str) == "done"


def test_run_tier_by_cost(make_agent: MakeAgent) -> None:
    script = Script(
        steps=[call("lookup", key="a")],
        usage=RequestUsage(input_tokens=100_000, output_tokens=10_000),
        model_name="gpt-4o",  # a model genai-prices knows, so the cost is known
    )
    agent = make_agent(script, tools=[lookup], run_usage_limits=RunUsageLimits(cost_limit_usd=0.1))
    with pytest.raises(RunUsageLimitError, match="cost_limit"):
        agent.run_sync("expensive", str)


# ---------------------------------------------------------------- agent tier


def test_agent_tier_by_runs(make_agent: MakeAgent, events: Events) -> None:
    agent = make_agent(agent_usage_limits=AgentUsageLimits(agent_request_limit=2))
    agent.run_sync("one", str)
    agent.run_sync("two", str)
    with pytest.raises(AgentUsageLimitError, match="all 2 runs") as exc:
        agent.run_sync("three", str)
    assert not isinstance(exc.value, RunUsageLimitError)
    assert isinstance(exc.value, UsageLimitError)
    assert len(events.of(RunStartedEvent)) == 2  # the refused run never started


def test_agent_tier_by_tokens_bounds_where_a_run_may_start(make_agent: MakeAgent) -> None:
    script = Script(usage=RequestUsage(input_tokens=100, output_tokens=50))
    agent = make_agent(script, agent_usage_limits=AgentUsageLimits(total_tokens_limit=200))
    agent.run_sync("first", str)  # 150 tokens
    agent.run_sync("second", str)  # starts below the line and crosses it: it finishes
    assert agent.lifetime_usage.total_tokens == 300
    with pytest.raises(AgentUsageLimitError, match="300 tokens"):
        agent.run_sync("third", str)


def test_agent_tier_by_cost(make_agent: MakeAgent, events: Events) -> None:
    script = Script(usage=RequestUsage(input_tokens=1000, output_tokens=500), model_name="gpt-4o")
    agent = make_agent(script, agent_usage_limits=AgentUsageLimits(cost_limit_usd=0.01))
    agent.run_sync("first", str)
    agent.run_sync("second", str)
    (first, second) = events.of(LlmUsageEvent)
    assert first.cost_usd is not None and first.cost_usd > 0
    assert agent.lifetime_usage.cost_usd == pytest.approx(first.cost_usd + (second.cost_usd or 0))
    with pytest.raises(AgentUsageLimitError, match="spent"):
        agent.run_sync("third", str)


def test_a_failing_run_still_counts(make_agent: MakeAgent) -> None:
    def broken(*_: object) -> None:
        raise RuntimeError("provider exploded")

    script = Script(steps=[broken])
    agent = make_agent(script, agent_usage_limits=AgentUsageLimits(agent_request_limit=2))
    with pytest.raises(RuntimeError, match="provider exploded"):
        agent.run_sync("one", str)
    assert agent.lifetime_usage.runs == 1
    agent.run_sync("two", str)
    with pytest.raises(AgentUsageLimitError):
        agent.run_sync("three", str)


def test_a_run_tier_breach_counts_against_the_lifetime(make_agent: MakeAgent) -> None:
    agent = make_agent(
        looping(),
        tools=[lookup],
        run_usage_limits=RunUsageLimits(run_request_limit=2),
        agent_usage_limits=AgentUsageLimits(agent_request_limit=1),
    )
    with pytest.raises(RunUsageLimitError):
        agent.run_sync("loop", str)
    with pytest.raises(AgentUsageLimitError):
        agent.conclude_without_tools("conclude", str)


# ---------------------------------------------------------------- restore and summaries


def test_lifetime_runs_are_restored_from_events(make_agent: MakeAgent) -> None:
    recorded: list[object] = []
    for n in range(180):
        run_id = f"old-run-{n}"
        recorded.append(RunStartedEvent(agent_name="tester", run_id=run_id))
        usage = LlmUsageEvent(run_id=run_id, input_tokens=3, output_tokens=2, total_tokens=5)
        recorded.append(usage)
    agent = make_agent(agent_usage_limits=AgentUsageLimits(agent_request_limit=200))
    agent.restore_context(recorded)
    assert agent.lifetime_usage.runs == 180
    assert agent.lifetime_usage.total_tokens == 900
    for _ in range(20):  # 20 left, not 200
        agent.run_sync("go", str)
    with pytest.raises(AgentUsageLimitError):
        agent.run_sync("one too many", str)


def test_restore_accepts_the_stored_json_form(make_agent: MakeAgent, events: Events) -> None:
    first = make_agent()
    first.run_sync("one", str)
    first.run_sync("two", str)
    stored = [event.model_dump(mode="json") for event in events]
    second = make_agent(agent_usage_limits=AgentUsageLimits(agent_request_limit=3))
    second.restore_context(stored)
    assert second.lifetime_usage.runs == 2
    second.run_sync("three", str)
    with pytest.raises(AgentUsageLimitError):
        second.run_sync("four", str)


def test_aggregate_usage(make_agent: MakeAgent, events: Events) -> None:
    script = Script(
        steps=[call("lookup", key="a"), [TextPart("ok")]],
        usage=RequestUsage(input_tokens=10, output_tokens=5),
    )
    agent = make_agent(script, tools=[lookup])
    agent.run_sync("first", str)
    agent.run_sync("second", str)
    summary = aggregate_usage(events)
    assert (summary.runs, summary.requests, summary.tool_calls) == (2, 3, 1)
    assert (summary.input_tokens, summary.output_tokens, summary.total_tokens) == (30, 15, 45)
    assert summary.cost_usd is None  # the scripted model has no price: unknown, not zero
    assert summary.by_run is None

    per_run = aggregate_usage(events, by_run=True).by_run
    assert per_run is not None
    first, second = per_run.values()
    assert (first.requests, first.tool_calls, first.total_tokens) == (2, 1, 30)
    assert (second.requests, second.tool_calls, second.total_tokens) == (1, 0, 15)


def test_aggregate_usage_sums_known_costs() -> None:
    usage = [
        LlmUsageEvent(run_id="a", total_tokens=10, cost_usd=0.25),
        LlmUsageEvent(run_id="a", total_tokens=10, cost_usd=None),
        LlmUsageEvent(run_id="b", total_tokens=10, cost_usd=0.5),
    ]
    summary = aggregate_usage(usage, by_run=True)
    assert summary.cost_usd == 0.75
    assert summary.runs == 2
    assert summary.by_run is not None
    assert summary.by_run["a"].cost_usd == 0.25
