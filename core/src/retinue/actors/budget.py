"""The team budget: limits across every member of a team, a tally, and the shared counter.

Every member's runner asks the team's `TeamBudget` before a run starts (`admit`) and charges
it with each model request's usage as it happens (`charge`), so the tally is current without
any ask to a team-wide thread. A run is refused once any figure has reached its limit; the
runs already admitted go on, so the spend ends at most at the limit plus what the runs in
flight at that moment spend. A member whose run is refused holds the message (`hold`), and
a raise of the limits wakes every holder (`BudgetRaisedMessage`).

This layer knows nothing of models: the counter takes plain numbers, and the fold of the
record's usage events into a `TeamUsage` lives with those events (`retinue.llm.team_usage`).
`LocalTeamBudget` is the in-process counter an `Orchestrator` owns; a runtime on other hosts
implements the `TeamBudget` protocol instead.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

from retinue.actors.address import ActorAddress
from retinue.actors.messages import Message
from retinue.actors.validation import ConfigModel

logger = logging.getLogger(__name__)

Metric = Literal["requests", "input_tokens", "output_tokens", "total_tokens", "cost_usd"]


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


METRICS: tuple[Metric, ...] = (
    "requests",
    "total_tokens",
    "input_tokens",
    "output_tokens",
    "cost_usd",
)
LABELS: dict[Metric, str] = {
    "requests": "requests",
    "input_tokens": "input tokens",
    "output_tokens": "output tokens",
    "total_tokens": "tokens",
    "cost_usd": "USD",
}


def render_figure(metric: Metric, value: float) -> str:
    """`12,300` or `$0.0123`: a figure as a person reads it."""
    return f"${value:,.4f}" if metric == "cost_usd" else f"{int(value):,}"


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
    """The answer to a run asking to start: admitted, or refused by the breaches named.

    `first_refusal` is True for exactly one refusal per exhaustion: the member that gets it
    tells the person (so they are told once, whoever hits the wall first).
    """

    model_config = ConfigDict(frozen=True, defer_build=True)

    admitted: bool
    breaches: tuple[BudgetBreach, ...] = ()
    first_refusal: bool = False


class BudgetStatus(BaseModel):
    """The budget as `/budget` shows it: limits, the tally, runs in flight, members holding."""

    model_config = ConfigDict(defer_build=True)

    limits: TeamUsageLimits
    usage: TeamUsage
    in_flight: int = 0
    peak_in_flight: int = 0
    holders: list[str] = Field(default_factory=list)

    @property
    def breaches(self) -> list[BudgetBreach]:
        """Every limit reached: while this is not empty, no run starts."""
        return breaches(self.usage, self.limits)


class BudgetRaisedMessage(Message):
    """Kernel news to a member holding messages: the budget was raised, handle them now."""


class BudgetLimitsChangedEvent(BaseModel):
    """The team's limits changed (a `/budget raise` or `set`, or code); kept in the record."""

    model_config = ConfigDict(defer_build=True)

    event_type: Literal["budget_limits_changed"] = "budget_limits_changed"
    limits: TeamUsageLimits
    changed_by: str = ""


class BudgetExhaustedEvent(BaseModel):
    """The team's budget refused its first run: the figures the person was told."""

    model_config = ConfigDict(defer_build=True)

    event_type: Literal["budget_exhausted"] = "budget_exhausted"
    breaches: list[BudgetBreach]
    refused_member: str


@runtime_checkable
class TeamBudget(Protocol):
    """The team-wide budget as members use it; safe from any member's thread, never blocking.

    Member names are the `@names` of the team. A runtime on other hosts implements this
    protocol (with a counter its hosts share); `LocalTeamBudget` is the in-process one.
    """

    @property
    def limits(self) -> TeamUsageLimits:
        """The limits in force."""
        ...

    def status(self) -> BudgetStatus:
        """A copy of the limits, the tally and who holds messages."""
        ...

    def admit(self, member: str) -> Admission:
        """Ask to start a run: admitted (and counted in flight) only below every limit."""
        ...

    def release(self, member: str) -> None:
        """A run admitted earlier has ended, however it ended."""
        ...

    def charge(
        self,
        member: str,
        usage: Charge,
    ) -> None:
        """Add one model request's usage (a summary written between runs too)."""
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


WakeHolders = Callable[[list[ActorAddress]], None]
Report = Callable[[BaseModel], None]


class LocalTeamBudget:
    """The in-process `TeamBudget`: one lock around the limits, the tally and the holders.

    Every call holds the lock for a few additions, never across a wait, so members on many
    threads charge it without queueing behind one another's work. `wake` delivers
    `BudgetRaisedMessage` to the holders after a change of limits; `report` publishes the
    budget's events for the record.
    """

    def __init__(
        self,
        limits: TeamUsageLimits | None = None,
        *,
        wake: WakeHolders | None = None,
        report: Report | None = None,
    ) -> None:
        self._lock = threading.Lock()
        self._limits = limits or TeamUsageLimits()
        self._usage = TeamUsage()
        self._in_flight = 0
        self._peak = 0
        self._holders: dict[str, ActorAddress] = {}
        self._told = False
        self._wake = wake
        self._report = report

    @property
    def limits(self) -> TeamUsageLimits:
        return self._limits

    def status(self) -> BudgetStatus:
        with self._lock:
            return BudgetStatus(
                limits=self._limits,
                usage=self._usage.model_copy(deep=True),
                in_flight=self._in_flight,
                peak_in_flight=self._peak,
                holders=sorted(self._holders),
            )

    def admit(self, member: str) -> Admission:
        with self._lock:
            found = breaches(self._usage, self._limits)
            if found:
                first, self._told = not self._told, True
                return Admission(admitted=False, breaches=tuple(found), first_refusal=first)
            self._usage.count_run(member)
            self._in_flight += 1
            self._peak = max(self._peak, self._in_flight)
        return Admission(admitted=True)

    def release(self, member: str) -> None:
        with self._lock:
            if self._in_flight > 0:
                self._in_flight -= 1

    def charge(
        self,
        member: str,
        usage: Charge,
    ) -> None:
        with self._lock:
            new_unpriced = self._usage.charge(member, usage)
        # said once per model, never for a scripted one; loudly only when a USD limit is blind
        if new_unpriced and not usage.scripted:
            capped = self._limits.cost_limit_usd is not None
            logger.log(
                logging.WARNING if capped else logging.INFO,
                "the team's USD figure leaves out %s: genai-prices has no price for it "
                "(its tokens and requests still count)",
                usage.model_name or "an unnamed model",
            )

    def hold(self, member: ActorAddress) -> bool:
        with self._lock:
            if not breaches(self._usage, self._limits):
                return False
            self._holders[member.name] = member
        return True

    def set_limits(self, limits: TeamUsageLimits, changed_by: str = "") -> TeamUsageLimits:
        return self._change(lambda _: limits, changed_by)

    def raise_limits(self, by: LimitsChange, changed_by: str = "") -> TeamUsageLimits:
        return self._change(by.raised, changed_by)

    def _change(
        self, change: Callable[[TeamUsageLimits], TeamUsageLimits], changed_by: str
    ) -> TeamUsageLimits:
        with self._lock:
            limits = self._limits = change(self._limits)
            holders: list[ActorAddress] = []
            if not breaches(self._usage, limits):  # runs may start: wake whoever waits
                self._told = False  # and the next exhaustion is news again
                holders, self._holders = list(self._holders.values()), {}
        if self._report is not None:
            self._report(BudgetLimitsChangedEvent(limits=limits, changed_by=changed_by))
        if holders and self._wake is not None:
            self._wake(holders)
        return limits

    def restore(self, usage: TeamUsage) -> None:
        with self._lock:
            self._usage = usage.model_copy(deep=True)
            self._told = False


def render_status(status: BudgetStatus) -> str:
    """What `/budget` shows: used / limit per metric, the breakdown by member, what is left out."""
    usage, limits = status.usage, status.limits
    lines = ["Team budget:" if limits.is_set else "Team budget: no limits set."]
    for metric in METRICS:
        limit = limits.limit_of(metric)
        if limit is None and metric in ("input_tokens", "output_tokens"):
            continue
        used = render_figure(metric, usage.figure(metric))
        allowed = "no limit" if limit is None else render_figure(metric, limit)
        mark = "  (spent)" if limit is not None and usage.figure(metric) >= limit else ""
        lines.append(f"  {LABELS[metric]}: {used} / {allowed}{mark}")
    if usage.unpriced_models:
        lines.append(
            "  The USD figure leaves out models genai-prices has no price for: "
            + ", ".join(usage.unpriced_models)
            + f" ({usage.unpriced_requests:,} requests, counted in tokens only)."
        )
    lines.append(f"  runs: {usage.runs:,} ({status.in_flight} in flight)")
    if status.holders:
        lines.append(
            f"  Waiting for a raise: {', '.join(status.holders)} hold messages the budget refused."
        )
    if usage.by_member:
        lines.append("By member:")
        for name, member in usage.by_member.items():
            lines.append(
                f"  {name}: {member.runs:,} runs, {member.requests:,} requests, "
                f"{member.total_tokens:,} tokens, {render_figure('cost_usd', member.cost_usd)}"
            )
    return "\n".join(lines)
