"""Errors raised by the model runner.

Callers tell the usage tiers apart by class, never by message text: a run-tier breach can be
answered with a tool-free conclusion, a lifetime breach cannot, and a spent team budget
holds the message until the person raises it.
"""

from __future__ import annotations

from collections.abc import Sequence

from retinue.team.budget import BudgetBreach
from retinue.validation import ConfigError

__all__ = [
    "AgentUsageLimitError",
    "ConfigError",
    "RunInterruptedError",
    "RunTimeoutError",
    "RunUsageLimitError",
    "TeamBudgetExhaustedError",
    "UsageLimitError",
]


class UsageLimitError(RuntimeError):
    """A usage budget was exhausted; the base of both tiers."""


class RunUsageLimitError(UsageLimitError):
    """One run used up its own budget (requests, tool calls, tokens or cost within the run)."""


class AgentUsageLimitError(UsageLimitError):
    """The agent's lifetime budget is spent; checked before a run starts."""


class TeamBudgetExhaustedError(UsageLimitError):
    """The team's budget refused a run before it started (nothing was spent), or its next
    model request (what it did so far is kept in the history).

    `breaches` names each limit reached; `first_refusal` is True for the one refusal per
    exhaustion.
    """

    def __init__(self, breaches: Sequence[BudgetBreach], first_refusal: bool = False) -> None:
        self.breaches = tuple(breaches)
        self.first_refusal = first_refusal
        figures = "; ".join(str(breach) for breach in self.breaches)
        super().__init__(f"the team's budget is spent ({figures})")


class RunInterruptedError(RuntimeError):
    """A run was ended on purpose (a cancel); the agent itself is fine.

    `run_id` names the run that was interrupted, so a stale cancel can be told from a live one.
    """

    def __init__(self, run_id: str | None = None, message: str | None = None) -> None:
        self.run_id = run_id
        super().__init__(message or f"run {run_id} was interrupted")

    def __reduce__(self) -> tuple[type[RunInterruptedError], tuple[str | None, str]]:
        return type(self), (self.run_id, str(self))


class RunTimeoutError(TimeoutError):
    """A run exceeded `RuntimeConfig.run_timeout`; what it completed stays in the history."""

    def __init__(self, run_id: str, timeout: float) -> None:
        self.run_id = run_id
        self.timeout = timeout
        super().__init__(f"run {run_id} exceeded its timeout of {timeout:g}s")

    def __reduce__(self) -> tuple[type[RunTimeoutError], tuple[str, float]]:
        return type(self), (self.run_id, self.timeout)
