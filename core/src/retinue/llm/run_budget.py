"""The team's budget inside one run: its limits, each request reserved, each response told.

A run the team's budget admitted is capped by what remained when it started: its request
limit in pydantic-ai's per-run `UsageLimits` is the tighter of the agent's run tier and the
team's remainder. Before each model request `BudgetHooks` reserves it, which ends the run
with `TeamBudgetExhaustedError` once any figure of the team's is spent, and after each
response tells the budget what it spent, so every member's next reservation sees it. A run
the team's request cap stopped is reported the same way (`team_cut`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from pydantic_ai import RunContext
from pydantic_ai.messages import ModelResponse

from retinue.actors.budget import BudgetBreach, Charge, TeamBudget, TeamUsageLimits
from retinue.llm.errors import TeamBudgetExhaustedError
from retinue.llm.limits import RunUsageLimits
from retinue.llm.pricing import price_response
from retinue.llm.run_hooks import RunHooks
from retinue.llm.run_parts import RunState
from retinue.llm.usage import RunUsageSummary

if TYPE_CHECKING:
    from pydantic_ai.usage import UsageLimits


def run_limits(
    run_tier: RunUsageLimits, remaining: TeamUsageLimits | None, *, conclusion: bool
) -> tuple[UsageLimits, int | None]:
    """pydantic-ai's limits for one run, and the team's request cap when it is the tighter.

    Only requests: pydantic-ai checks them before a request, but its token and cost limits
    also after each response, and a run past them would throw away an answer already paid
    for. `BudgetHooks` checks those before each request instead, against the whole team.
    """
    limits = run_tier.to_usage_limits(request_limit=1 if conclusion else None)
    cap = remaining.request_limit if remaining is not None else None
    if cap is None or (limits.request_limit is not None and limits.request_limit <= cap):
        return limits, None
    limits.request_limit = cap
    return limits, cap


def team_cut(cap: int, usage: RunUsageSummary | None) -> list[BudgetBreach]:
    """The breach when a run pydantic-ai stopped had used the team's request cap (empty: its
    own tier stopped it)."""
    if usage is None or usage.requests < cap:
        return []
    return [BudgetBreach(metric="requests", used=usage.requests, limit=cap)]


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
        usage = response.usage
        self.budget.spend(
            self.member,
            Charge(
                model_name=response.model_name,
                requests=usage.requests,
                input_tokens=usage.input_tokens,
                output_tokens=usage.output_tokens,
                total_tokens=usage.total_tokens,
                cost_usd=price_response(response) if self.priced else None,
            ),
        )
