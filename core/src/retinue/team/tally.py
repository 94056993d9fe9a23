"""What a team has spent: one request's `Charge`, and the tallies it adds up to.

Plain numbers, no model objects: the budget counts them (`retinue.team.budget`), and the
fold of the record's usage events into a `TeamUsage` lives with those events
(`retinue.llm.team_usage`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Metric = Literal["requests", "input_tokens", "output_tokens", "total_tokens", "cost_usd"]

METRICS: tuple[Metric, ...] = (
    "requests",
    "total_tokens",
    "input_tokens",
    "output_tokens",
    "cost_usd",
)
"""The metrics a budget limits, in the order they are shown."""


@dataclass(frozen=True, slots=True)
class Charge:
    """One model request's usage as the budget counts it: plain numbers, no model objects.

    `cost_usd` is None when no price is known for `model_name`; its requests and tokens
    still count. `scripted`: a scripted model answered, whose lack of a price is no news.
    """

    model_name: str | None
    requests: int
    input_tokens: int
    output_tokens: int
    total_tokens: int
    cost_usd: float | None
    scripted: bool = False


class MemberUsage(BaseModel):
    """What one member has spent: runs admitted, requests, tokens, known cost."""

    model_config = ConfigDict(defer_build=True)

    runs: int = 0
    requests: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    total_tokens: int = 0
    cost_usd: float = 0.0
    unpriced_requests: int = 0

    def figure(self, metric: Metric) -> float:
        return float(getattr(self, metric))


class TeamUsage(MemberUsage):
    """The team's tally: the sum over its members, their breakdown, the models not priced.

    A pure fold of the record (`retinue.llm.team_usage.team_usage_from_events`), so a resumed
    team recomputes it from what was recorded. `cost_usd` sums the costs `genai-prices`
    knows; `unpriced_models` names the models whose requests count in tokens only.
    """

    by_member: dict[str, MemberUsage] = Field(default_factory=dict)
    unpriced_models: list[str] = Field(default_factory=list)

    def _member(self, name: str) -> MemberUsage:
        member = self.by_member.get(name)
        if member is None:
            member = self.by_member[name] = MemberUsage()
        return member

    def count_run(self, member: str) -> None:
        """A run admitted (counted before it runs: a failing run counts too)."""
        for tally in (self, self._member(member)):
            tally.runs += 1

    def charge(
        self,
        member: str,
        usage: Charge,
    ) -> bool:
        """Add one model request's usage; True when it names a model newly found unpriced."""
        requests, cost_usd = usage.requests, usage.cost_usd
        for tally in (self, self._member(member)):
            tally.requests += requests
            tally.input_tokens += usage.input_tokens
            tally.output_tokens += usage.output_tokens
            tally.total_tokens += usage.total_tokens
            if cost_usd is None:
                tally.unpriced_requests += requests
            else:
                tally.cost_usd += cost_usd
        if cost_usd is not None:
            return False
        model = usage.model_name or "(unnamed model)"
        if model in self.unpriced_models:
            return False
        self.unpriced_models.append(model)
        return True
