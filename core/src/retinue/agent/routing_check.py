"""Give a model one chance, inside the same run, to fix recipients the team does not have."""

from __future__ import annotations

from typing import Any, Protocol

from pydantic_ai import ModelRetry, RunContext

from retinue.agent.output import StructuredOutput
from retinue.llm.run_hooks import RunHooks, RunState


class RecipientChecker(Protocol):
    """The agent, seen from the check."""

    async def routing_problems(self, output: StructuredOutput) -> str | None:
        """Why some recipients cannot be reached (with the valid ones), or None."""
        ...


_USED = "retinue.recipient_check_used"
"""`RunState.notes` key: the run has had its one correction (or may have none)."""


class RecipientCheck(RunHooks):
    """After the output validates, send unknown `@Name`s and unhireable roles back once."""

    def __init__(self, checker: RecipientChecker) -> None:
        self._checker = checker
        self._stand_down_next = False

    def run_starting(self, state: RunState) -> None:
        """Each run gets its own single correction (none after `stand_down`)."""
        if self._stand_down_next:
            self._stand_down_next = False
            state.notes[_USED] = True

    def stand_down(self) -> None:
        """No correction for the coming run: it cannot afford another request.

        A tool-free conclusion has exactly one request; sending it back would breach its
        budget and lose the answer it holds. Its unknown recipients are skipped at routing.
        """
        self._stand_down_next = True

    async def after_output_validate(
        self, ctx: RunContext[Any], state: RunState, output: Any
    ) -> Any:
        if state.notes.get(_USED) or not isinstance(output, StructuredOutput):
            return output
        if not output.messages or ctx.retry >= ctx.max_retries:
            return output
        problems = await self._checker.routing_problems(output)
        if problems is None:
            return output
        state.notes[_USED] = True
        raise ModelRetry(problems)
