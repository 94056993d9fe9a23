"""The two usage tiers: what one run may spend, and what an agent may spend in its life.

The run tier is enforced by pydantic-ai inside the run; the agent tier is checked by
`ReactAgent` before each run starts (see `retinue.llm.usage`).
"""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING

from pydantic import Field

from retinue.llm._data import PlainData

if TYPE_CHECKING:
    from pydantic_ai.usage import UsageLimits


class RunUsageLimits(PlainData):
    """Budget of one run; every count starts again at zero with the next run.

    The 50-request default is a brake on runaway tool loops. `None` switches a limit off
    (pydantic-ai would otherwise apply its own 50-request default).
    """

    run_request_limit: int | None = Field(default=50, ge=1)
    tool_calls_limit: int | None = Field(default=None, ge=0)
    input_tokens_limit: int | None = Field(default=None, ge=0)
    output_tokens_limit: int | None = Field(default=None, ge=0)
    total_tokens_limit: int | None = Field(default=None, ge=0)
    cost_limit_usd: float | None = Field(default=None, ge=0)

    def to_usage_limits(self, *, request_limit: int | None = None) -> UsageLimits:
        """The pydantic-ai limits for one run; `request_limit` overrides the request cap."""
        from pydantic_ai.usage import UsageLimits

        return UsageLimits(
            request_limit=self.run_request_limit if request_limit is None else request_limit,
            tool_calls_limit=self.tool_calls_limit,
            input_tokens_limit=self.input_tokens_limit,
            output_tokens_limit=self.output_tokens_limit,
            total_tokens_limit=self.total_tokens_limit,
            cost_limit=None if self.cost_limit_usd is None else Decimal(str(self.cost_limit_usd)),
        )


class AgentUsageLimits(PlainData):
    """Budget of an agent's whole life, across runs and restarts.

    All `None` by default, and an all-`None` budget never blocks. A run is counted before it
    executes, so a run that fails still counts; the token and cost caps bound where a run may
    start, not where it ends (a run's cost is known only once it is over).
    """

    agent_request_limit: int | None = Field(default=None, ge=0)
    total_tokens_limit: int | None = Field(default=None, ge=0)
    cost_limit_usd: float | None = Field(default=None, ge=0)
