"""What a turn's reports become on its span: span events, usage, and how the turn ended.

One `TurnRecord` per turn reads what the turn reported (see `retinue.actors.turns`): usage
per model request is summed, and hires, fires, cancels, skipped routes, stopped chains,
usage-limit breaches and failed runs become span events with the turn's time of each.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from opentelemetry.util.types import AttributeValue
from retinue import (
    BudgetExhaustedEvent,
    ChainMessageDroppedEvent,
    ChainStoppedEvent,
    EventMessage,
    LlmUsageEvent,
    Message,
    RoutingSkippedEvent,
    RunFinishedEvent,
    RunStartedEvent,
    StartMessage,
    StopMessage,
)

Attributes = dict[str, AttributeValue]
SpanEvent = tuple[str, Attributes]

# Span event names: `retinue.<what happened>`.
HIRE = "retinue.hire"
FIRE = "retinue.fire"
CANCEL = "retinue.cancel"
ROUTE_SKIPPED = "retinue.route_skipped"
CHAIN_STOPPED = "retinue.chain_stopped"
MESSAGE_DROPPED = "retinue.message_dropped"
USAGE_LIMIT = "retinue.usage_limit"
RUN_FAILED = "retinue.run_failed"

#: How a run that did not complete shows on its turn's span (`RunFinishedEvent.status`).
_RUN_ENDS = {
    "interrupted": CANCEL,
    "usage_limit": USAGE_LIMIT,
    "timeout": RUN_FAILED,
    "failed": RUN_FAILED,
}


@dataclass
class TurnRecord:
    """What one turn reported so far that its span sums up at its end."""

    run_ids: list[str] = field(default_factory=list)
    cancelled: bool = False
    run_breached: bool = False
    requests: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float | None = None
    model: str | None = None

    def read(self, report: Message) -> SpanEvent | None:
        """Take in one report; the span event it makes, if any."""
        if isinstance(report, EventMessage):
            return self._event(report.event)
        if isinstance(report, StartMessage) and report.sender is not None:
            member = report.sender
            return HIRE, {
                "retinue.member.name": member.name,
                "retinue.member.role": member.role,
                "retinue.member.id": member.agent_id,
                "retinue.member.class": report.actor_class,
            }
        if isinstance(report, StopMessage) and report.sender is not None:
            member = report.sender
            return FIRE, {"retinue.member.name": member.name, "retinue.member.id": member.agent_id}
        return None

    def _event(self, event: Any) -> SpanEvent | None:
        if isinstance(event, LlmUsageEvent):
            self._add_usage(event)
        elif isinstance(event, RunStartedEvent) and event.run_id is not None:
            self.run_ids.append(event.run_id)
        elif isinstance(event, RunFinishedEvent):
            return self._run_finished(event)
        else:
            describe = _SPAN_EVENTS.get(type(event))
            return describe(event) if describe is not None else None
        return None

    def _run_finished(self, event: RunFinishedEvent) -> SpanEvent | None:
        name = _RUN_ENDS.get(event.status)
        if name is None:
            return None
        if name == CANCEL:
            self.cancelled = True
        attributes: Attributes = {
            "retinue.run.id": event.run_id or "",
            "retinue.run.status": event.status,
        }
        if event.status == "usage_limit":
            self.run_breached = True
            attributes["retinue.limit.tier"] = "run"
        if event.error:
            attributes["retinue.reason"] = event.error
        return name, attributes

    def _add_usage(self, event: LlmUsageEvent) -> None:
        self.requests += event.requests
        self.input_tokens += event.input_tokens
        self.output_tokens += event.output_tokens
        if event.cost_usd is not None:
            self.cost_usd = (self.cost_usd or 0.0) + event.cost_usd
        if event.model_name:
            self.model = event.model_name

    def end_attributes(self, aggregated: bool) -> Attributes:
        """The turn's runs and usage; usage as `gen_ai.aggregated_usage.*` when `aggregated`
        (as pydantic-ai names its run spans' usage, so a backend summing `gen_ai.usage.*`
        over a trace counts each model request once, on its `chat` span)."""
        attributes: Attributes = {}
        if self.run_ids:
            attributes["retinue.run.id"] = self.run_ids[0]
        if len(self.run_ids) > 1:  # a conclusion after a breach, say
            attributes["retinue.run.ids"] = list(self.run_ids)
        if not self.requests:
            return attributes
        prefix = "gen_ai.aggregated_usage" if aggregated else "gen_ai.usage"
        attributes[f"{prefix}.input_tokens"] = self.input_tokens
        attributes[f"{prefix}.output_tokens"] = self.output_tokens
        attributes["retinue.usage.requests"] = self.requests
        if self.cost_usd is not None:
            attributes["retinue.cost_usd"] = self.cost_usd
        if self.model is not None:
            attributes["gen_ai.response.model"] = self.model
        return attributes


def _route_skipped(event: RoutingSkippedEvent) -> SpanEvent:
    return ROUTE_SKIPPED, {"retinue.recipient": event.recipient, "retinue.reason": event.reason}


def _chain_stopped(event: ChainStoppedEvent) -> SpanEvent:
    stop = event.stop
    attributes: Attributes = {
        "retinue.chain.id": stop.chain_id,
        "retinue.stop.kind": stop.kind,
        "retinue.reason": stop.reason,
        "retinue.stop.members": list(stop.members),
    }
    if stop.by is not None:
        attributes["retinue.stop.by"] = stop.by
    return CHAIN_STOPPED, attributes


def _message_dropped(event: ChainMessageDroppedEvent) -> SpanEvent:
    return MESSAGE_DROPPED, {"retinue.message.id": event.message_id, "retinue.reason": event.reason}


def _budget_exhausted(event: BudgetExhaustedEvent) -> SpanEvent:
    reason = "; ".join(str(breach) for breach in event.breaches)
    return USAGE_LIMIT, {"retinue.limit.tier": "team", "retinue.reason": reason}


#: Events that become span events as they are, by their class.
_SPAN_EVENTS: dict[type[Any], Callable[[Any], SpanEvent]] = {
    RoutingSkippedEvent: _route_skipped,
    ChainStoppedEvent: _chain_stopped,
    ChainMessageDroppedEvent: _message_dropped,
    BudgetExhaustedEvent: _budget_exhausted,
}
