"""Lifetime usage counters, the agent-tier check, and usage summaries folded from events.

The counters are never persisted: they are recomputed from the same events a store keeps
(`LlmUsageEvent`, `RunStartedEvent`), so an agent restored after spending 180 of 200 runs has
20 left.
"""

from __future__ import annotations

from collections import OrderedDict
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


class UsageLedger:
    """Usage folded as events arrive: lifetime totals, and the breakdown of recent runs.

    An agent keeps one instead of its events, so its memory does not grow with every run;
    the full record of every event is the store's job. `keep_runs=None` keeps every run.
    """

    def __init__(self, keep_runs: int | None = 200) -> None:
        self.keep_runs = keep_runs
        self._totals = AgentUsageSummary()
        self._runs: OrderedDict[str, RunUsageSummary] = OrderedDict()

    def _slot(self, run_id: str | None) -> RunUsageSummary | None:
        if run_id is None:
            return None
        run = self._runs.get(run_id)
        if run is None:
            run = self._runs[run_id] = RunUsageSummary(run_id=run_id)
            self._totals.runs += 1
            if self.keep_runs is not None and len(self._runs) > self.keep_runs:
                self._runs.popitem(last=False)
        return run

    def add(self, item: object) -> None:
        """Fold one event (or its stored form); anything that is not usage is ignored."""
        for event in iter_llm_events([item]):
            run = self._slot(event.run_id)
            totals = self._totals
            if isinstance(event, ToolCallEvent):
                totals.tool_calls += 1
                if run is not None:
                    run.tool_calls += 1
            elif isinstance(event, LlmUsageEvent):
                for tally in (totals, run):
                    if tally is None:
                        continue
                    tally.requests += event.requests
                    tally.input_tokens += event.input_tokens
                    tally.output_tokens += event.output_tokens
                    tally.total_tokens += event.total_tokens
                    tally.cost_usd = _add_cost(tally.cost_usd, event.cost_usd)

    def summary(self, by_run: bool = False) -> AgentUsageSummary:
        """The totals, with the per-run breakdown (of the runs kept) when asked for."""
        result = self._totals.model_copy()
        if by_run:
            result.by_run = {k: v.model_copy() for k, v in self._runs.items()}
        return result


def aggregate_usage(events: Iterable[object], by_run: bool = False) -> AgentUsageSummary:
    """Fold usage, tool-call and run-start events into one summary."""
    ledger = UsageLedger(keep_runs=None)
    for event in events:
        ledger.add(event)
    return ledger.summary(by_run=by_run)
