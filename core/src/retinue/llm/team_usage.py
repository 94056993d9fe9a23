"""The team's tally and limits folded from the record, and the runner's side of the budget.

`team_usage_from_events` is a pure function of recorded events (`RunStartedEvent` counts a
run, `LlmUsageEvent` its requests, tokens and recorded cost), so a team resumed from its
record recomputes exactly the tally its budget had; `team_limits_from_events` replays the raises.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import fields
from typing import Protocol

from retinue.llm.events import LlmEvent, LlmUsageEvent, RunStartedEvent
from retinue.llm.usage import iter_llm_events
from retinue.team.budget import BudgetLimitsChangedEvent, TeamUsageLimits
from retinue.team.tally import Charge, TeamUsage


class Chargeable(Protocol):
    """What a usage event is charged to: the team's budget, or a tally being folded."""

    def charge(self, member: str, usage: Charge) -> object: ...


_CHARGED = {field.name for field in fields(Charge)}
"""What a usage event says that its charge carries: all but whose run it was."""


def charge_event(target: Chargeable, event: LlmEvent) -> None:
    """Charge `target` with one usage event (anything else is no usage)."""
    if isinstance(event, LlmUsageEvent):
        target.charge(event.agent_name, Charge(**event.model_dump(include=_CHARGED)))


def team_usage_from_events(events: Iterable[object]) -> TeamUsage:
    """The team's tally as its budget counted it, from the record of every member's runs.

    `events` may mix any recorded items (event objects, their stored dict form, the runtime's
    event messages); what is not a run start or a usage report is skipped.
    """
    usage = TeamUsage()
    for event in iter_llm_events(events):
        if isinstance(event, RunStartedEvent):
            usage.count_run(event.agent_name)
        else:
            charge_event(usage, event)
    return usage


def team_limits_from_events(
    events: Iterable[object], initial: TeamUsageLimits | None = None
) -> TeamUsageLimits:
    """The limits in force after the record's last change (`initial` when it has none)."""
    limits = initial or TeamUsageLimits()
    for item in events:
        event = getattr(item, "event", item)
        if isinstance(event, BudgetLimitsChangedEvent):
            limits = event.limits
        elif isinstance(event, dict) and event.get("event_type") == "budget_limits_changed":
            limits = BudgetLimitsChangedEvent.model_validate(event).limits
    return limits
