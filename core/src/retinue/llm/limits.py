"""The two usage tiers: what one run may spend, and what an agent may spend in its life.

The run tier is enforced by pydantic-ai inside the run; the agent tier is checked by
`ReactAgent` before each run starts (see `retinue.llm.usage`).
"""

from __future__ import annotations

from decimal import Decimal
from typing import TYPE_CHECKING, Any

from pydantic import Field

from retinue.llm._data import PlainData
from retinue.validation import ConfigError, ConfigProblem, warn_at_caller

if TYPE_CHECKING:
    from pydantic_ai.usage import UsageLimits as PydanticAIUsageLimits


class RunUsageLimits(PlainData):
    """Budget of one run; every count starts again at zero with the next run.

    The 50-request default is a brake on runaway tool loops. `None` switches a limit off
    (pydantic-ai would otherwise apply its own 50-request default); a token or cost cap of 0
    would fail every run, so it is refused (`tool_calls_limit=0` is a real choice: no tools).
    """

    run_request_limit: int | None = Field(default=50, ge=1)
    tool_calls_limit: int | None = Field(default=None, ge=0)
    input_tokens_limit: int | None = Field(default=None, ge=1)
    output_tokens_limit: int | None = Field(default=None, ge=1)
    total_tokens_limit: int | None = Field(default=None, ge=1)
    cost_limit_usd: float | None = Field(default=None, gt=0)

    def to_usage_limits(self, *, request_limit: int | None = None) -> PydanticAIUsageLimits:
        """The pydantic-ai limits for one run; `request_limit` overrides the request cap."""
        from pydantic_ai.usage import UsageLimits as PydanticAIUsageLimits

        return PydanticAIUsageLimits(
            request_limit=self.run_request_limit if request_limit is None else request_limit,
            tool_calls_limit=self.tool_calls_limit,
            input_tokens_limit=self.input_tokens_limit,
            output_tokens_limit=self.output_tokens_limit,
            total_tokens_limit=self.total_tokens_limit,
            cost_limit=None if self.cost_limit_usd is None else Decimal(str(self.cost_limit_usd)),
        )


class AgentUsageLimits(PlainData):
    """Budget of an agent's whole life, across runs and restarts.

    All `None` by default, and an all-`None` budget never blocks; a cap of 0 would block the
    first run, so it is refused. A run is counted before it executes, so a run that fails
    still counts; the token and cost caps bound where a run may start, not where it ends (a
    run's cost is known only once it is over).
    """

    agent_request_limit: int | None = Field(default=None, ge=1)
    total_tokens_limit: int | None = Field(default=None, ge=1)
    cost_limit_usd: float | None = Field(default=None, gt=0)


class UsageLimits(RunUsageLimits):
    """Deprecated: the budget's name before it was split into two tiers; use `RunUsageLimits`.

    It still works, with a `DeprecationWarning` at the line that builds it: `request_limit`
    is the run tier's `run_request_limit`, everything else is unchanged. An `AgentConfig`
    given one keeps a plain `RunUsageLimits`, so a saved config never names this class.
    """

    def __init__(self, /, **data: Any) -> None:
        warn_at_caller(
            "UsageLimits is deprecated; use RunUsageLimits (request_limit is now run_request_limit)"
        )
        super().__init__(**fold_request_limit(data, "UsageLimits"))

    @property
    def request_limit(self) -> int | None:
        """The pre-split name of `run_request_limit`."""
        return self.run_request_limit


def fold_request_limit(data: dict[str, Any], owner: str) -> dict[str, Any]:
    """The pre-split keyword `request_limit` renamed `run_request_limit` (both: refused)."""
    if "request_limit" not in data:
        return data
    if "run_request_limit" in data:
        raise ConfigError.from_problems(
            owner,
            [
                ConfigProblem(
                    ("request_limit",),
                    "give run_request_limit or its deprecated name request_limit, not both",
                )
            ],
        )
    folded = dict(data)
    folded["run_request_limit"] = folded.pop("request_limit")
    return folded
