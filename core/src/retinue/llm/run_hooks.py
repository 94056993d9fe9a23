"""The runner's one pydantic-ai capability, and the hooks its owner adds to every run.

pydantic-ai calls every hook of every capability of an agent on every step of a run, each
with its own copy of the run context, so each capability costs a run even where it does
nothing. A runner therefore adds exactly one, `RunnerCapability`, holding all it must learn
or do from inside a run: which tools end the run, automatic compaction, and its owner's
`RunHooks` (an agent's cancellation check and recipient check). It keeps no state of its
own: each call finds the run it acts for by id among the runner's runs in flight, so one
object serves every run, and pydantic-ai never rebuilds it per run.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from pydantic_ai import RunContext
from pydantic_ai.capabilities import AbstractCapability
from pydantic_ai.models import ModelRequestContext
from pydantic_ai.output import OutputContext
from pydantic_ai.tools import ToolDefinition

from retinue.llm.context import ContextManager
from retinue.llm.run_parts import RunState


class RunHooks:
    """What a runner's owner does inside each of its runs; every method is optional.

    Per-run notes go in `RunState.notes` (one run may still be winding down on the model
    loop when the next starts, so they never live on the hooks object itself).
    """

    def run_starting(self, state: RunState) -> None:
        """In the owner's thread, just before the run is handed to the model loop."""

    async def before_model_request(self, ctx: RunContext[Any], state: RunState) -> None:
        """Before each model request of the run (raise to end it, `ctx.enqueue` to add)."""

    async def after_output_validate(
        self, ctx: RunContext[Any], state: RunState, output: Any
    ) -> Any:
        """After the run's output validated; return it (or raise `ModelRetry`)."""
        return output


class RunnerCapability(AbstractCapability[Any]):
    """Everything a runner does inside its runs, as one capability of its pydantic-ai agents.

    Before each request: the owner's hooks, then compaction once the context is over budget
    (`context` None: none), which marks the run compacted and keeps the run's own messages it
    dropped, so what the run reports still accounts for them. It learns which tools end the
    run, so a call of one is reported as the answer, not as a tool call.
    """

    def __init__(
        self,
        runs: Mapping[str, RunState],
        *,
        context: ContextManager | None = None,
        hooks: Sequence[RunHooks] = (),
    ) -> None:
        self._runs = runs
        self._context = context
        self._hooks = tuple(hooks)

    def _run_of(self, run_id: str | None) -> RunState | None:
        return self._runs.get(run_id) if run_id is not None else None

    async def prepare_output_tools(
        self, ctx: RunContext[Any], tool_defs: list[ToolDefinition]
    ) -> list[ToolDefinition]:
        state = self._run_of(ctx.run_id)
        if state is not None:
            state.output_tools.update(tool.name for tool in tool_defs)
        return tool_defs

    async def before_model_request(
        self, ctx: RunContext[Any], request_context: ModelRequestContext
    ) -> ModelRequestContext:
        state = self._run_of(ctx.run_id)
        if state is not None:
            for hook in self._hooks:
                await hook.before_model_request(ctx, state)
        context = self._context
        if context is None or not context.over_budget(request_context.messages):
            return request_context
        result = await context.compacted(request_context.messages, ctx.run_id)
        if result is None:
            return request_context
        if state is not None:
            state.compacted = True
            state.dropped.extend(
                m for m in result.dropped if getattr(m, "run_id", None) == ctx.run_id
            )
        request_context.messages = list(result.kept)
        ctx.messages[:] = result.kept
        return request_context

    async def after_output_validate(
        self, ctx: RunContext[Any], *, output_context: OutputContext, output: Any
    ) -> Any:
        state = self._run_of(ctx.run_id)
        if state is not None:
            for hook in self._hooks:
                output = await hook.after_output_validate(ctx, state, output)
        return output
