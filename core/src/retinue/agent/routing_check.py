"""Give a model one chance, inside the same run, to fix recipients the team does not have."""

from __future__ import annotations

from typing import Any, Protocol

from pydantic_ai import ModelRetry, RunContext
from pydantic_ai.capabilities import AbstractCapability
from pydantic_ai.output import OutputContext

from retinue.agent.output import StructuredOutput


class RecipientChecker(Protocol):
    """The agent, seen from the check."""

    async def routing_problems(self, output: StructuredOutput) -> str | None:
        """Why some recipients cannot be reached (with the valid ones), or None."""
        ...


class RecipientCheckCapability(AbstractCapability[Any]):
    """After the output validates, send unknown `@Name`s and unhireable roles back once."""

    def __init__(self, checker: RecipientChecker, *, used: bool = False) -> None:
        self._checker = checker
        self._used = used
        self._stand_down_next = False

    async def for_run(self, ctx: RunContext[Any]) -> RecipientCheckCapability:
        """Each run gets its own single correction (none after `stand_down`)."""
        used, self._stand_down_next = self._stand_down_next, False
        return RecipientCheckCapability(self._checker, used=used)

    def stand_down(self) -> None:
        """No correction for the coming run: it cannot afford another request.

        A tool-free conclusion has exactly one request; sending it back would breach its
        budget and lose the answer it holds. Its unknown recipients are skipped at routing.
        """
        self._stand_down_next = True

    async def after_output_validate(
        self, ctx: RunContext[Any], *, output_context: OutputContext, output: Any
    ) -> Any:
        if self._used or not isinstance(output, StructuredOutput) or not output.messages:
            return output
        if ctx.retry >= ctx.max_retries:
            return output
        problems = await self._checker.routing_problems(output)
        if problems is None:
            return output
        self._used = True
        raise ModelRetry(problems)
