"""Lifetime usage counters, the agent-tier check, and usage summaries folded from events.

The counters are never persisted: they are recomputed from the same events a store keeps
(`LlmUsageEvent`, `RunStartedEvent`), so an agent restored after spending 180 of 200 runs has
20 left.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from pydantic import BaseModel

from retinue.llm.errors import AgentUsageLimitError
from retinue.llm.events import (
    LlmEvent,
    LlmUsageEvent,
    RunStartedEvent,
    ToolCallEvent,
    parse_llm_event,
)
from retinue.llm.limits import AgentUsageLimits


def iter_llm_events(events: Iterable[object]) -> Iterator[LlmEvent]:
    """The LLM events among `events`: event objects, their stored dict form, or wrappers
    exposing them as `.event` (the runtime's event message); anything else is skipped."""
    for item in events:
        if isinstance(item, LlmEvent):
            yield item
        elif isinstance(item, dict) and "event_type" in item:
            yield parse_llm_event(item)
        else:
            inner = getattr(item, "event", None)
            if isinstance(inner, LlmEvent):
                yield inner


@dataclass
class AgentUsageCounters:
    """What an agent has spent in its life: runs admitted, tokens, known cost."""

    runs: int = 0
    total_tokens: int = 0
    cost_usd: float = 0.0

    def check(self, limits: AgentUsageLimits, agent_name: str) -> None:
        """Raise `AgentUsageLimitError` if another run may not start."""
        who = f"agent {agent_name!r}" if agent_name else "agent"
        if limits.agent_request_limit is not None and self.runs >= limits.agent_request_limit:
            raise AgentUsageLimitError(
                f"{who} has used all {limits.agent_request_limit} runs of its lifetime budget"
            )
        if limits.total_tokens_limit is not None and self.total_tokens >= limits.total_tokens_limit:
            raise AgentUsageLimitError(
                f"{who} has used {self.total_tokens} tokens of its lifetime budget of "
                f"{limits.total_tokens_limit}"
            )
        if limits.cost_limit_usd is not None and self.cost_usd >= limits.cost_limit_usd:
            raise AgentUsageLimitError(
                f"{who} has spent ${self.cost_usd:.4f} of its lifetime budget of "
                f"${limits.cost_limit_usd:.4f}"
            )

    def add_usage(self, event: LlmUsageEvent) -> None:
        self.total_tokens += event.total_tokens
        if event.cost_usd is not None:
            self.cost_usd += event.cost_usd

    @classmethod
    def from_events(cls, events: Iterable[object]) -> AgentUsageCounters:
        """Counters recomputed from recorded events (runs counted by distinct run id)."""
        counters = cls()
        runs: set[str] = set()
        for event in iter_llm_events(events):
            if isinstance(event, RunStartedEvent | LlmUsageEvent) and event.run_id is not None:
                runs.add(event.run_id)
            if isinstance(event, LlmUsageEvent):
                counters.add_usage(event)
        counters.runs = len(runs)
        return counters


class RunUsageSummary(BaseModel):
    """Usage of one run."""

    run_id: str
    requests: int = 0
    tool_calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    total_tokens: int = 0
    cost_usd: float | None = None


class AgentUsageSummary(BaseModel):
    """Usage of an agent over the events given; `cost_usd` sums the known costs (None if none
    was known). `by_run` is filled only when asked for, in order of first appearance."""

    runs: int = 0
    requests: int = 0
    tool_calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    total_tokens: int = 0
    cost_usd: float | None = None
    by_run: dict[str, RunUsageSummary] | None = None


def _add_cost(total: float | None, cost: float | None) -> float | None:
    if cost is None:
        return total
    return cost if total is None else total + cost


def aggregate_usage(events: Iterable[object], by_run: bool = False) -> AgentUsageSummary:
    """Fold usage, tool-call and run-start events into one summary."""
    summary = AgentUsageSummary()
    runs: dict[str, RunUsageSummary] = {}
    outside = RunUsageSummary(run_id="")  # usage recorded outside any run (manual compaction)

    def slot(run_id: str | None) -> RunUsageSummary:
        if run_id is None:
            return outside
        return runs.setdefault(run_id, RunUsageSummary(run_id=run_id))

    for event in iter_llm_events(events):
        if isinstance(event, RunStartedEvent):
            slot(event.run_id)
        elif isinstance(event, ToolCallEvent):
            slot(event.run_id).tool_calls += 1
        elif isinstance(event, LlmUsageEvent):
            run = slot(event.run_id)
            run.requests += event.requests
            run.input_tokens += event.input_tokens
            run.output_tokens += event.output_tokens
            run.total_tokens += event.total_tokens
            run.cost_usd = _add_cost(run.cost_usd, event.cost_usd)

    summary.runs = len(runs)
    for run in [*runs.values(), outside]:
        summary.requests += run.requests
        summary.tool_calls += run.tool_calls
        summary.input_tokens += run.input_tokens
        summary.output_tokens += run.output_tokens
        summary.total_tokens += run.total_tokens
        summary.cost_usd = _add_cost(summary.cost_usd, run.cost_usd)
    if by_run:
        summary.by_run = runs
    return summary
