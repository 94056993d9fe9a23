"""The team's budget inside one run: its limits, each request reserved, each response told.

A run the team's budget admitted is capped by what remained when it started: its request
limit in pydantic-ai's per-run `UsageLimits` is the tighter of the agent's run tier and the
team's remainder. Before each model request `BudgetHooks` reserves it, which ends the run
with `TeamBudgetExhaustedError` once any figure of the team's is spent, and after each
response tells the budget what it spent, so every member's next reservation sees it. A run
the team's request cap stopped is reported the same way (`team_cut`).
"""

from __future__ import annotations

from typing import Any

from pydantic_ai import RunContext
from pydantic_ai.messages import ModelResponse

from retinue.llm.errors import RunUsageLimitError, TeamBudgetExhaustedError
from retinue.llm.limits import RunUsageLimits
from retinue.llm.response_usage import response_charge
from retinue.llm.run_hooks import RunHooks, RunState
from retinue.llm.usage import RunUsageSummary
from retinue.team.budget import BudgetBreach, TeamBudget, TeamUsageLimits


def request_cap(run_tier: RunUsageLimits, remaining: TeamUsageLimits | None) -> int | None:
    """The team's remaining requests, when they cap a run more tightly than its own tier.

    Only requests go to pydantic-ai's per-run `UsageLimits`: it checks them before a request,
    but its token and cost limits also after each response, and a run past them would throw
    away an answer already paid for. `BudgetHooks` checks those before each request instead,
    against the whole team.
    """
    cap = remaining.request_limit if remaining is not None else None
    own = run_tier.run_request_limit
    return cap if cap is not None and (own is None or cap < own) else None


def admit_run(budget: TeamBudget | None, member: str) -> TeamUsageLimits | None:
    """Count `member`'s run in flight in the team's budget, or raise when it is spent.

    Returns what the team had left for it (None: no team limit, nothing to reserve).
    """
    if budget is None:
        return None
    admission = budget.admit(member)
    if not admission.admitted:
        raise TeamBudgetExhaustedError(admission.breaches, admission.first_refusal)
    return admission.remaining


def with_budget(
    hooks: tuple[RunHooks, ...],
    budget: TeamBudget | None,
    member: str,
    remaining: TeamUsageLimits | None,
) -> tuple[RunHooks, ...]:
    """A run's hooks, with its reservations when the team has a limit."""
    if remaining is None or budget is None:
        return hooks
    return (*hooks, BudgetHooks(budget, member, priced=remaining.cost_limit_usd is not None))


def team_cut(
    error: BaseException | None, cap: int | None, usage: RunUsageSummary | None
) -> BaseException | None:
    """`error`, as the team's budget when the run pydantic-ai stopped had used the team's
    request cap (its own tier, when it had not)."""
    if not isinstance(error, RunUsageLimitError) or cap is None or usage is None:
        return error
    if usage.requests < cap:
        return error
    cut = TeamBudgetExhaustedError(
        [BudgetBreach(metric="requests", used=usage.requests, limit=cap)]
    )
    cut.__cause__ = error
    return cut


class BudgetHooks(RunHooks):
    """One run's requests reserved in the team's budget, and its responses told to it.

    `priced`: the team has a USD limit, so each response is priced as it arrives.
    """

    def __init__(self, budget: TeamBudget, member: str, *, priced: bool) -> None:
        self.budget = budget
        self.member = member
        self.priced = priced

    async def before_model_request(self, ctx: RunContext[Any], state: RunState) -> None:
        admission = await self.budget.reserve(self.member)
        if not admission.admitted:
            raise TeamBudgetExhaustedError(admission.breaches, admission.first_refusal)

    async def after_model_request(
        self, ctx: RunContext[Any], state: RunState, response: ModelResponse
    ) -> None:
        self.budget.spend(self.member, response_charge(response, priced=self.priced))
