"""One agent's usage ledger, the agent-tier check against it, and summaries folded from events.

The ledger is never persisted: it is recomputed from the same events a store keeps
(`LlmUsageEvent`, `RunStartedEvent`, `ToolCallEvent`), so an agent restored after spending
180 of 200 runs has 20 left, and reports the 180.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterable, Iterator

from pydantic import BaseModel, ConfigDict

from retinue.llm.errors import AgentUsageLimitError
from retinue.llm.events import (
    LLM_EVENT_TYPES,
    LlmEvent,
    LlmUsageEvent,
    RunStartedEvent,
    ToolCallEvent,
    parse_llm_event,
)
from retinue.llm.limits import AgentUsageLimits

_USAGE_EVENTS = (RunStartedEvent, LlmUsageEvent, ToolCallEvent)


def iter_llm_events(events: Iterable[object]) -> Iterator[LlmEvent]:
    """The LLM events among `events`: event objects, their stored dict form, or wrappers
    exposing them as `.event` (the runtime's event message); anything else is skipped."""
    for item in events:
        if isinstance(item, LlmEvent):
            yield item
        elif isinstance(item, dict) and item.get("event_type") in LLM_EVENT_TYPES:
            yield parse_llm_event(item)
        else:
            inner = getattr(item, "event", None)
            if isinstance(inner, LlmEvent):
                yield inner


class UsageTally(BaseModel):
    """What a run and an agent count alike: requests, tool calls, tokens, known cost."""

    model_config = ConfigDict(defer_build=True)

    requests: int = 0
    tool_calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    total_tokens: int = 0
    cost_usd: float | None = None

    def add_usage(self, event: LlmUsageEvent) -> None:
        """Fold one model response's usage in (its cost only when known)."""
        self.requests += event.requests
        self.input_tokens += event.input_tokens
        self.output_tokens += event.output_tokens
        self.total_tokens += event.total_tokens
        self.cost_usd = _add_cost(self.cost_usd, event.cost_usd)


class RunUsageSummary(UsageTally):
    """Usage of one run."""

    run_id: str


class AgentUsageSummary(UsageTally):
    """Usage of an agent over the events given; `cost_usd` sums the known costs (None if none
    was known). `by_run` is filled only when asked for, in order of first appearance."""

    runs: int = 0
    by_run: dict[str, RunUsageSummary] | None = None


def _add_cost(total: float | None, cost: float | None) -> float | None:
    if cost is None:
        return total
    return cost if total is None else total + cost


class UsageLedger:
    """Usage folded as events arrive: lifetime totals, and the breakdown of recent runs.

    The one record of what an agent has spent: its runner admits runs and folds its events
    here, checks the agent tier against it, and the agent's `get_usage_summary` reads it.
    It keeps no events, so its memory does not grow with every run; the full record of every
    event is the store's job. `keep_runs=None` keeps every run's breakdown.
    """

    def __init__(self, keep_runs: int | None = 200) -> None:
        self.keep_runs = keep_runs
        self._totals = AgentUsageSummary()
        self._runs: OrderedDict[str, RunUsageSummary] = OrderedDict()

    @classmethod
    def from_events(cls, events: Iterable[object], keep_runs: int | None = 200) -> UsageLedger:
        """A ledger recomputed from recorded events (each run counted once, by its id)."""
        ledger = cls(keep_runs=keep_runs)
        for event in events:
            ledger.add(event)
        return ledger

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

    def admit(self, run_id: str) -> None:
        """Count a run before it executes: a run that fails or is interrupted still counts."""
        self._slot(run_id)

    def check(self, limits: AgentUsageLimits, agent_name: str) -> None:
        """Raise `AgentUsageLimitError` if another run may not start."""
        totals = self._totals
        who = f"agent {agent_name!r}" if agent_name else "agent"
        if limits.agent_request_limit is not None and totals.runs >= limits.agent_request_limit:
            raise AgentUsageLimitError(
                f"{who} has used all {limits.agent_request_limit} runs of its lifetime budget"
            )
        tokens = totals.total_tokens
        if limits.total_tokens_limit is not None and tokens >= limits.total_tokens_limit:
            raise AgentUsageLimitError(
                f"{who} has used {tokens} tokens of its lifetime budget of "
                f"{limits.total_tokens_limit}"
            )
        cost = totals.cost_usd or 0.0
        if limits.cost_limit_usd is not None and cost >= limits.cost_limit_usd:
            raise AgentUsageLimitError(
                f"{who} has spent ${cost:.4f} of its lifetime budget of "
                f"${limits.cost_limit_usd:.4f}"
            )

    def add(self, item: object) -> None:
        """Fold one event (or its stored form); anything that is not usage is ignored.

        A run is counted by its start, its usage or its tool calls: the other events of a run
        (its messages, its end) name it too, and a record may hold them alone.
        """
        for event in iter_llm_events([item]):
            if not isinstance(event, _USAGE_EVENTS):
                continue
            run = self._slot(event.run_id)
            totals = self._totals
            if isinstance(event, ToolCallEvent):
                totals.tool_calls += 1
                if run is not None:
                    run.tool_calls += 1
            elif isinstance(event, LlmUsageEvent):
                totals.add_usage(event)
                if run is not None:
                    run.add_usage(event)

    def run_summary(self, run_id: str) -> RunUsageSummary | None:
        """The usage of one run, while its breakdown is kept."""
        run = self._runs.get(run_id)
        return run.model_copy() if run is not None else None

    def summary(self, by_run: bool = False) -> AgentUsageSummary:
        """The totals, with the per-run breakdown (of the runs kept) when asked for."""
        result = self._totals.model_copy()
        if by_run:
            result.by_run = {k: v.model_copy() for k, v in self._runs.items()}
        return result


def aggregate_usage(events: Iterable[object], by_run: bool = False) -> AgentUsageSummary:
    """Fold usage, tool-call and run-start events into one summary."""
    return UsageLedger.from_events(events, keep_runs=None).summary(by_run=by_run)
