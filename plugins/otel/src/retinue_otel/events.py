"""What a turn's reports become on its span: span events, usage, and how the turn ended.

One `TurnRecord` per turn reads what the turn reported (see `retinue.actors.turns`): usage
per model request is summed, and hires, fires, cancels, skipped routes, stopped chains,
usage-limit breaches and failed runs become span events with the turn's time of each.
"""

from __future__ import annotations

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

# Span event names: `retinue.<what happened>`.
HIRE = "retinue.hire"
FIRE = "retinue.fire"
CANCEL = "retinue.cancel"
ROUTE_SKIPPED = "retinue.route_skipped"
CHAIN_STOPPED = "retinue.chain_stopped"
MESSAGE_DROPPED = "retinue.message_dropped"
USAGE_LIMIT = "retinue.usage_limit"
RUN_FAILED = "retinue.run_failed"

_RUN_ENDS = {"interrupted": CANCEL, "usage_limit": USAGE_LIMIT, "timeout": RUN_FAILED}


@dataclass
class TurnRecord:
    """What one turn reported so far that its span sums up at its end."""

    run_ids: list[str] = field(default_factory=list)
    cancelled: bool = False
    requests: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float | None = None
    model: str | None = None

    def read(self, report: Message) -> tuple[str, Attributes] | None:
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

    def _event(self, event: Any) -> tuple[str, Attributes] | None:
        if isinstance(event, LlmUsageEvent):
            self._add_usage(event)
            return None
        if isinstance(event, RunStartedEvent):
            if event.run_id is not None:
                self.run_ids.append(event.run_id)
            return None
        if isinstance(event, RunFinishedEvent):
            return self._run_finished(event)
        if isinstance(event, RoutingSkippedEvent):
            return ROUTE_SKIPPED, {"retinue.recipient": event.recipient, "retinue.reason": event.reason}
        if isinstance(event, ChainStoppedEvent):
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
        if isinstance(event, ChainMessageDroppedEvent):
            return MESSAGE_DROPPED, {
                "retinue.message.id": event.message_id,
                "retinue.reason": event.reason,
            }
        if isinstance(event, BudgetExhaustedEvent):
            return USAGE_LIMIT, {
                "retinue.limit.tier": "team",
                "retinue.reason": "; ".join(str(breach) for breach in event.breaches),
            }
        return None

    def _run_finished(self, event: RunFinishedEvent) -> tuple[str, Attributes] | None:
        name = _RUN_ENDS.get(event.status)
        if event.status == "failed":
            name = RUN_FAILED
        if name is None:
            return None
        if name == CANCEL:
            self.cancelled = True
        attributes: Attributes = {"retinue.run.id": event.run_id or "", "retinue.run.status": event.status}
        if event.status == "usage_limit":
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
