"""The team budget: limits across every member of a team, a tally, and the shared counter.

Every member's runner asks the team's `TeamBudget` before a run starts (`admit`, which
reserves the run's first model request), again before each further request (`reserve`),
tells it what each response spent as it arrives (`spend`) and charges it with the usage the
run reports (`charge`); what a run reserved and did not use comes back when it ends
(`release`). Admission and reservation look at the tally plus everything in flight, so a
team's requests never pass their limit, and its tokens and cost pass theirs by at most one
response per run in flight. A member whose run is refused holds the message (`hold`), and
a raise of the limits wakes every holder (`BudgetRaisedMessage`); the person is told once
when a limit is reached, by the member whose run reached it (`BudgetSpentMessage`).

This layer knows nothing of models: the counter takes plain numbers (the tally's own module,
`retinue.team.tally`; `retinue.team.budget_report` renders it), and the fold of the
record's usage events into a `TeamUsage` lives with those events (`retinue.llm.team_usage`).
`LocalTeamBudget` (`retinue.team.local_budget`) is the in-process counter an
`Orchestrator` owns; a runtime on other hosts implements the `TeamBudget` protocol instead.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

from retinue.actors.address import ActorAddress
from retinue.actors.messages import Message
from retinue.team.budget_report import LABELS, render_figure, render_status
from retinue.team.tally import METRICS, Charge, MemberUsage, Metric, TeamUsage
from retinue.validation import ConfigModel

#: The tally (`tally`) and how it reads (`budget_report`) live apart; their names still read
#: from here, for older imports and for type paths recorded before the split.
__all__ = [
    "LABELS",
    "METRICS",
    "Admission",
    "BudgetBreach",
    "BudgetExhaustedEvent",
    "BudgetLimitsChangedEvent",
    "BudgetRaisedMessage",
    "BudgetSpentMessage",
    "BudgetStatus",
    "Charge",
    "LimitsChange",
    "MemberUsage",
    "Metric",
    "TeamBudget",
    "TeamUsage",
    "TeamUsageLimits",
    "breaches",
    "render_figure",
    "render_status",
]


class TeamUsageLimits(ConfigModel):
    """What a whole team may spend, hired members included; `None` switches a limit off.

    All `None` by default: a team without a budget is never stopped by one. A limit of 0
    would refuse the first run, so it is refused. `cost_limit_usd` counts only the models
    `genai-prices` knows; requests of other models count in the request and token limits.
    """

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False, defer_build=True)

    request_limit: int | None = Field(default=None, ge=1)
    input_tokens_limit: int | None = Field(default=None, ge=1)
    output_tokens_limit: int | None = Field(default=None, ge=1)
    total_tokens_limit: int | None = Field(default=None, ge=1)
    cost_limit_usd: float | None = Field(default=None, gt=0)

    def limit_of(self, metric: Metric) -> float | None:
        """The limit on `metric`, or None when it has none."""
        return {
            "requests": self.request_limit,
            "input_tokens": self.input_tokens_limit,
            "output_tokens": self.output_tokens_limit,
            "total_tokens": self.total_tokens_limit,
            "cost_usd": self.cost_limit_usd,
        }[metric]

    @property
    def is_set(self) -> bool:
        """Whether any limit is on."""
        return any(value is not None for value in self.model_dump().values())


class BudgetBreach(BaseModel):
    """One limit reached: which, how much was used, how much was allowed."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    metric: Metric
    used: float
    limit: float

    def __str__(self) -> str:
        return (
            f"{LABELS[self.metric]}: {render_figure(self.metric, self.used)} used of "
            f"{render_figure(self.metric, self.limit)} allowed"
        )


def breaches(usage: MemberUsage, limits: TeamUsageLimits) -> list[BudgetBreach]:
    """Every limit that `usage` has reached (a run may start only when this is empty)."""
    found = []
    for metric in METRICS:
        limit = limits.limit_of(metric)
        used = usage.figure(metric)
        if limit is not None and used >= limit:
            found.append(BudgetBreach(metric=metric, used=used, limit=limit))
    return found


class Admission(BaseModel):
    """The answer to a run asking to start, or to send a request: admitted, or refused.

    `first_refusal` is True for exactly one refusal per exhaustion. `remaining` is what an
    admitted run may spend at most: the team's limits less what was used and reserved when
    it started (None when the team has no limit, so nothing needs reserving).
    """

    model_config = ConfigDict(frozen=True, defer_build=True)

    admitted: bool
    breaches: tuple[BudgetBreach, ...] = ()
    first_refusal: bool = False
    remaining: TeamUsageLimits | None = None


class BudgetStatus(BaseModel):
    """The budget as `/budget` shows it: limits, the tally, runs in flight, members holding."""

    model_config = ConfigDict(defer_build=True)

    limits: TeamUsageLimits
    usage: TeamUsage
    in_flight: int = 0
    #: Requests the runs in flight have reserved and not yet reported.
    reserved_requests: int = 0
    peak_in_flight: int = 0
    holders: list[str] = Field(default_factory=list)

    @property
    def breaches(self) -> list[BudgetBreach]:
        """Every limit reached: while this is not empty, no run starts."""
        return breaches(self.usage, self.limits)


class BudgetRaisedMessage(Message):
    """Kernel news to a member holding messages: the budget was raised, handle them now."""


class BudgetSpentMessage(Message):
    """Kernel news to the member whose run reached a limit first: tell the person, once."""

    breaches: list[BudgetBreach]


class BudgetLimitsChangedEvent(BaseModel):
    """The team's limits changed (a `/budget raise` or `set`, or code); kept in the record."""

    model_config = ConfigDict(defer_build=True)

    event_type: Literal["budget_limits_changed"] = "budget_limits_changed"
    limits: TeamUsageLimits
    changed_by: str = ""


class BudgetExhaustedEvent(BaseModel):
    """A limit of the team's budget was reached: the figures the person is told.

    `refused_member` names the member whose run reached it, or was refused first.
    """

    model_config = ConfigDict(defer_build=True)

    event_type: Literal["budget_exhausted"] = "budget_exhausted"
    breaches: list[BudgetBreach]
    refused_member: str


@runtime_checkable
class TeamBudget(Protocol):
    """The team-wide budget as members use it; safe from any member's thread, never blocking.

    Member names are the `@names` of the team. A runtime on other hosts implements this
    protocol (with a counter its hosts share); `LocalTeamBudget` is the in-process one. When
    a limit is first reached, the budget sends the member whose run reached it (or was
    refused first) a `BudgetSpentMessage`, so the person is told once.
    """

    @property
    def limits(self) -> TeamUsageLimits:
        """The limits in force."""
        ...

    def status(self) -> BudgetStatus:
        """A copy of the limits, the tally and who holds messages."""
        ...

    def admit(self, member: str) -> Admission:
        """Ask to start a run: admitted (counted in flight, its first request reserved) only
        below every limit. A member runs one run at a time."""
        ...

    async def reserve(self, member: str) -> Admission:
        """Before each model request of `member`'s run: reserve it, or refuse it at a limit.

        Awaited on the model loop, so it must never block it (a remote budget awaits its
        answer); the request admission reserved is used first.
        """
        ...

    def spend(self, member: str, usage: Charge) -> None:
        """What one response of `member`'s run in flight spent, as it arrives (not waited on)."""
        ...

    def release(self, member: str) -> None:
        """A run admitted earlier has ended, however it ended: what it reserved and did
        not use comes back."""
        ...

    def charge(
        self,
        member: str,
        usage: Charge,
    ) -> None:
        """Add one model request's usage to the tally (a summary written between runs too);
        for a run in flight, it settles what that run reserved and spent."""
        ...

    def hold(self, member: ActorAddress) -> bool:
        """`member` holds a message the budget refused; it is woken when the limits rise.

        False when runs may start again already (a raise came in between): handle it now.
        """
        ...

    def set_limits(self, limits: TeamUsageLimits, changed_by: str = "") -> TeamUsageLimits:
        """Replace the limits; when runs may start again, every holder is woken.

        Returns the limits now in force.
        """
        ...

    def raise_limits(self, by: LimitsChange, changed_by: str = "") -> TeamUsageLimits:
        """Raise each limit named in `by` by that much (a limit that was off stays off).

        Returns the limits now in force; holders are woken as by `set_limits`.
        """
        ...

    def restore(self, usage: TeamUsage) -> None:
        """Start from a tally recomputed from the record (a resumed team)."""
        ...


class LimitsChange(BaseModel):
    """How much to add to each limit (`raise`), or what to set it to (`set`); None: unchanged.

    `off` (for `set`) names the limits to switch off.
    """

    model_config = ConfigDict(frozen=True, defer_build=True)

    request_limit: int | None = Field(default=None, ge=0)
    input_tokens_limit: int | None = Field(default=None, ge=0)
    output_tokens_limit: int | None = Field(default=None, ge=0)
    total_tokens_limit: int | None = Field(default=None, ge=0)
    cost_limit_usd: float | None = Field(default=None, ge=0)
    off: frozenset[str] = frozenset()

    def given(self) -> Iterator[tuple[str, float]]:
        for name, value in self.model_dump(exclude={"off"}).items():
            if value is not None:
                yield name, value

    def raised(self, limits: TeamUsageLimits) -> TeamUsageLimits:
        """`limits` with each given amount added; a limit that was off stays off."""
        update = {}
        for name, amount in self.given():
            current = getattr(limits, name)
            if current is not None:
                update[name] = current + amount
        return TeamUsageLimits.model_validate({**limits.model_dump(), **update})

    def applied(self, limits: TeamUsageLimits) -> TeamUsageLimits:
        """`limits` with each given value set and each name in `off` switched off."""
        values = {**limits.model_dump(), **dict(self.given())}
        for name in self.off:
            values[name] = None
        return TeamUsageLimits.model_validate(values)
