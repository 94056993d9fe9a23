"""`LocalTeamBudget`: the in-process team budget, which reserves for the runs in flight.

A run reserves its first model request when it is admitted and each further one before it
is sent; what its responses spend is counted as they arrive, and settled into the tally when
the run's usage events are charged; whatever it reserved and did not use comes back when it
ends. Admission and each reservation look at the tally plus everything in flight, so the
team's requests never pass their limit, and its tokens and cost pass theirs by at most one
response per run in flight (a response's size is known only once it is back).

One lock guards the limits, the tally, the reservations and the holders. Each call holds it
for a few additions, never across a wait or a callback, so members on many threads (and the
model loop) reach it without queueing behind one another's work, and a raise racing with
runs can neither lose nor double a charge.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, fields

from pydantic import BaseModel

from retinue.actors.address import ActorAddress
from retinue.team.budget import (
    Admission,
    BudgetBreach,
    BudgetLimitsChangedEvent,
    BudgetStatus,
    LimitsChange,
    TeamUsageLimits,
)
from retinue.team.tally import METRICS, Charge, Metric, TeamUsage

logger = logging.getLogger(__name__)

WakeHolders = Callable[[list[ActorAddress]], None]
Report = Callable[[BaseModel], None]
Announce = Callable[[str, list[BudgetBreach]], None]

_ADMITTED = Admission(admitted=True)
_FIELDS: dict[Metric, str] = {
    "requests": "request_limit",
    "input_tokens": "input_tokens_limit",
    "output_tokens": "output_tokens_limit",
    "total_tokens": "total_tokens_limit",
    "cost_usd": "cost_limit_usd",
}


@dataclass(slots=True)
class _Pending:
    """Reserved or spent but not yet charged: one run's, or the sum over the runs in flight."""

    requests: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    total_tokens: int = 0
    cost_usd: float = 0.0


_PENDING = tuple(f.name for f in fields(_Pending))


@dataclass(slots=True)
class _Flight(_Pending):
    """One member's run in flight; `unsent` counts its reserved requests not sent yet."""

    unsent: int = 0


class LocalTeamBudget:
    """The in-process `TeamBudget`: one lock around limits, tally, reservations and holders.

    `wake` delivers `BudgetRaisedMessage` to the holders once runs may start again (a change
    of limits, or reservations coming back); `report` publishes the budget's events for the
    record; `announce` tells the member whose run first reached a limit that the person must
    hear of it (the orchestrator sends it a `BudgetSpentMessage`).
    """

    def __init__(
        self,
        limits: TeamUsageLimits | None = None,
        *,
        wake: WakeHolders | None = None,
        report: Report | None = None,
        announce: Announce | None = None,
    ) -> None:
        self._lock = threading.Lock()
        self._usage = TeamUsage()
        self._pending = _Pending()
        self._flights: dict[str, _Flight] = {}
        self._in_flight = 0
        self._peak = 0
        self._holders: dict[str, ActorAddress] = {}
        self._told = False  # the person has heard of this exhaustion
        self._refused = False  # a run was refused in this exhaustion
        self._wake = wake
        self._report = report
        self._announce = announce
        self._set(limits or TeamUsageLimits())

    def _set(self, limits: TeamUsageLimits) -> None:
        self._limits = limits
        #: The limits that are on, as (metric, limit): what every check walks.
        self._caps = tuple(
            (metric, limit) for metric in METRICS if (limit := limits.limit_of(metric)) is not None
        )

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
                reserved_requests=self._pending.requests,
                holders=sorted(self._holders),
            )

    # ------------------------------------------------------------------ under the lock
    def _used(self, metric: Metric) -> float:
        """Charged, plus reserved or spent in flight."""
        return float(getattr(self._usage, metric) + getattr(self._pending, metric))

    def _breaches(self) -> list[BudgetBreach]:
        return [
            BudgetBreach(metric=metric, used=used, limit=limit)
            for metric, limit in self._caps
            if (used := self._used(metric)) >= limit
        ]

    def _spent(self) -> bool:
        return any(self._used(metric) >= limit for metric, limit in self._caps)

    def _refusal(self) -> tuple[Admission, list[BudgetBreach] | None]:
        found = self._breaches()
        first, self._refused = not self._refused, True
        admission = Admission(admitted=False, breaches=tuple(found), first_refusal=first)
        return admission, self._reached()

    def _reached(self) -> list[BudgetBreach] | None:
        """The breaches to tell the person of, when a limit has just been reached."""
        if self._told or not self._spent():
            return None
        self._told = True
        return self._breaches()

    def _reserve(self, flight: _Flight) -> None:
        flight.requests += 1
        self._pending.requests += 1

    def _move(self, flight: _Pending, amounts: _Pending, sign: int) -> None:
        """Add (`sign=1`) or take back (`-1`) `amounts` in `flight` and the team's sum."""
        for name in _PENDING:
            delta = sign * getattr(amounts, name)
            setattr(flight, name, getattr(flight, name) + delta)
            setattr(self._pending, name, getattr(self._pending, name) + delta)

    # ------------------------------------------------------------------ calls outside it
    def _tell(self, member: str, news: list[BudgetBreach] | None) -> None:
        if news is None:
            return
        logger.info("the team's budget is spent: %s", "; ".join(str(b) for b in news))
        if self._announce is not None:
            self._announce(member, news)

    def _wake_all(self, holders: list[ActorAddress]) -> None:
        if holders and self._wake is not None:
            self._wake(holders)

    # ------------------------------------------------------------------ a run's life
    def admit(self, member: str) -> Admission:
        with self._lock:
            if self._spent():
                admission, news = self._refusal()
            else:
                self._usage.count_run(member)
                self._in_flight += 1
                self._peak = max(self._peak, self._in_flight)
                admission, news = self._reserve_first(member)
        self._tell(member, news)
        return admission

    def _reserve_first(self, member: str) -> tuple[Admission, list[BudgetBreach] | None]:
        if not self._caps:
            return _ADMITTED, None
        left = {metric: limit - self._used(metric) for metric, limit in self._caps}
        remaining = TeamUsageLimits.model_validate(
            {_FIELDS[m]: v if m == "cost_usd" else int(v) for m, v in left.items()}
        )
        flight = self._flights.setdefault(member, _Flight())
        flight.unsent += 1
        self._reserve(flight)
        return Admission(admitted=True, remaining=remaining), self._reached()

    async def reserve(self, member: str) -> Admission:
        return self.reserve_now(member)

    def reserve_now(self, member: str) -> Admission:
        """`reserve`, answered at once: what a remote budget asks this one for."""
        with self._lock:
            if not self._caps:
                return _ADMITTED
            flight = self._flights.get(member)
            if flight is None:  # admitted while the team had no limit
                flight = self._flights[member] = _Flight()
            if flight.unsent:
                flight.unsent -= 1
                return _ADMITTED
            if self._spent():
                admission, news = self._refusal()
            else:
                self._reserve(flight)
                admission, news = _ADMITTED, self._reached()
        self._tell(member, news)
        return admission

    def spend(self, member: str, usage: Charge) -> None:
        with self._lock:
            flight = self._flights.get(member)
            if flight is None:
                return
            spent = _Pending(
                input_tokens=usage.input_tokens,
                output_tokens=usage.output_tokens,
                total_tokens=usage.total_tokens,
                cost_usd=usage.cost_usd or 0.0,
            )
            self._move(flight, spent, 1)
            news = self._reached()
        self._tell(member, news)

    def charge(self, member: str, usage: Charge) -> None:
        with self._lock:
            new_unpriced = self._usage.charge(member, usage)
            flight = self._flights.get(member)
            if flight is not None:  # what it reserved and spent is now charged
                settled = _Pending(
                    requests=min(flight.requests - flight.unsent, usage.requests),
                    input_tokens=min(flight.input_tokens, usage.input_tokens),
                    output_tokens=min(flight.output_tokens, usage.output_tokens),
                    total_tokens=min(flight.total_tokens, usage.total_tokens),
                    cost_usd=min(flight.cost_usd, usage.cost_usd or 0.0),
                )
                self._move(flight, settled, -1)
            news = self._reached()
        self._tell(member, news)
        # said once per model, never for a scripted one; loudly only when a USD limit is blind
        if new_unpriced and not usage.scripted:
            capped = self._limits.cost_limit_usd is not None
            logger.log(
                logging.WARNING if capped else logging.INFO,
                "the team's USD figure leaves out %s: genai-prices has no price for it "
                "(its tokens and requests still count)",
                usage.model_name or "an unnamed model",
            )

    def release(self, member: str) -> None:
        holders: list[ActorAddress] = []
        with self._lock:
            if self._in_flight > 0:
                self._in_flight -= 1
            flight = self._flights.pop(member, None)
            if flight is not None:
                self._move(flight, _Pending(**{n: getattr(flight, n) for n in _PENDING}), -1)
                if self._holders and not self._spent():  # what came back lets runs start
                    holders, self._holders = list(self._holders.values()), {}
        self._wake_all(holders)

    # ------------------------------------------------------------------ holders and limits
    def hold(self, member: ActorAddress) -> bool:
        with self._lock:
            if not self._spent():
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
            self._set(change(self._limits))
            limits = self._limits
            holders: list[ActorAddress] = []
            if not self._spent():  # runs may start: wake whoever waits
                self._told = self._refused = False  # and the next exhaustion is news again
                holders, self._holders = list(self._holders.values()), {}
        if self._report is not None:
            self._report(BudgetLimitsChangedEvent(limits=limits, changed_by=changed_by))
        self._wake_all(holders)
        return limits

    def restore(self, usage: TeamUsage) -> None:
        with self._lock:
            self._usage = usage.model_copy(deep=True)
            self._told = self._refused = False
