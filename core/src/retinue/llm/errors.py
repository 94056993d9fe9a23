"""Errors raised by the model runner.

Callers tell the usage tiers apart by class, never by message text: a run-tier breach can be
answered with a tool-free conclusion, a lifetime breach cannot.
"""

from __future__ import annotations

from retinue.actors.validation import ConfigError

__all__ = [
    "AgentUsageLimitError",
    "ConfigError",
    "RunInterruptedError",
    "RunTimeoutError",
    "RunUsageLimitError",
    "UsageLimitError",
]


class UsageLimitError(RuntimeError):
    """A usage budget was exhausted; the base of both tiers."""


class RunUsageLimitError(UsageLimitError):
    """One run used up its own budget (requests, tool calls, tokens or cost within the run)."""


class AgentUsageLimitError(UsageLimitError):
    """The agent's lifetime budget is spent; checked before a run starts."""


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
