"""The runners' one pydantic-ai capability, the hooks a runner's owner adds to its runs, and
the state of a run they all share (`RunState`).

pydantic-ai calls every hook of every capability of an agent on every step of a run, each
with its own copy of the run context, so each capability costs a run even where it does
nothing. A runner therefore adds exactly one, `RUNNER_CAPABILITY`, holding all it must
learn or do from inside a run: which tools end the run, which tool definitions it offers,
automatic compaction, and its `RunHooks` (an agent's cancellation check and recipient check,
the team budget's reservations).

That capability keeps no state: each run finds what it acts for in its `RunBinding`, which
the runner sets in the run's context (a context variable, copied into every task and worker
thread of the run). So one capability object serves every run of every runner, and a
pydantic-ai agent built once serves every runner of the same shape (see `run_agents`).
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Callable, Mapping
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic_ai import CancellationToken, ModelRetry, RunContext
from pydantic_ai.capabilities import (
    AbstractCapability,
    ValidatedToolArgs,
    WrapToolExecuteHandler,
)
from pydantic_ai.messages import ModelMessage, ModelResponse, ToolCallPart
from pydantic_ai.models import ModelRequestContext
from pydantic_ai.output import OutputContext
from pydantic_ai.tools import ToolDefinition

from retinue.actors.address import new_id
from retinue.llm.context import ContextManager
from retinue.llm.events import ToolDefinitionsEvent
from retinue.llm.offered_tools import OfferedTools
from retinue.llm.served_tools import ToolResultSource

RunKind = Literal["run", "conclusion"]


def new_run_id() -> str:
    """A fresh run id."""
    return new_id()


@dataclass
class RunState:
    """What the runner knows about the run in flight; shared with the loop thread and with
    every hook of the run."""

    run_id: str
    kind: RunKind
    token: CancellationToken = field(default_factory=CancellationToken)
    #: Set when the run's future is done or the run is interrupted; the caller waits on it.
    wake: threading.Event = field(default_factory=threading.Event)
    interrupted: bool = False
    compacted: bool = False
    dropped: list[ModelMessage] = field(default_factory=list)
    output_tools: set[str] = field(default_factory=set)
    messages: list[ModelMessage] | None = None
    #: What the runner's owner notes about this run (`RunHooks`), by the owner's key.
    notes: dict[str, Any] = field(default_factory=dict)
    #: The team's remaining requests when they cap this run more tightly than its own tier.
    team_request_cap: int | None = None
    #: Model responses so far; and the tool definitions that changed, each with the number
    #: of responses before the request that offered them (reported just before its answer).
    responses: int = 0
    tool_definitions: list[tuple[int, ToolDefinitionsEvent]] = field(default_factory=list)


class RunHooks:
    """What a runner's owner does inside each of its runs; every method is optional.

    Per-run notes go in `RunState.notes` (one run may still be winding down on the model
    loop when the next starts, so they never live on the hooks object itself).
    """

    def run_starting(self, state: RunState) -> None:
        """In the owner's thread, just before the run is handed to the model loop."""

    async def before_model_request(self, ctx: RunContext[Any], state: RunState) -> None:
        """Before each model request of the run (raise to end it, `ctx.enqueue` to add)."""

    async def after_model_request(
        self, ctx: RunContext[Any], state: RunState, response: ModelResponse
    ) -> None:
        """After each model response of the run, before anything acts on it."""

    def offers(self, tool: str) -> bool:
        """Whether the next model request offers function tool `tool` (every hook must)."""
        return True

    async def after_output_validate(
        self, ctx: RunContext[Any], state: RunState, output: Any
    ) -> Any:
        """After the run's whole output validated (never a streamed part of it); return it
        (or raise `ModelRetry`)."""
        return output


class ToolHooks:
    """What a runner's owner does around each function tool call of its runs.

    Apart from `RunHooks`, so a run whose model calls no tool pays nothing for them.
    """

    async def tool_starting(
        self, ctx: RunContext[Any], state: RunState, call: ToolCallPart, tool: ToolDefinition
    ) -> None:
        """Before a function tool runs (once its arguments validated)."""

    def tool_finished(
        self,
        state: RunState,
        call: ToolCallPart,
        result: Any,
        error: BaseException | None,
    ) -> None:
        """After a function tool returned `result` or raised `error` (also when cancelled)."""

    def tool_result(self, ctx: RunContext[Any], call: ToolCallPart, result: Any) -> Any:
        """What the model reads of a call that returned `result`: `result`, or more."""
        return result


@dataclass(frozen=True, slots=True)
class RunBinding:
    """What one run of a runner needs from inside pydantic-ai: set in the run's context.

    `context` is set when the runner compacts automatically; `tools` are the runner's own
    tool functions by name, which the tools of a shared pydantic-ai agent call; `offered`
    the tool definitions it recorded last.
    """

    state: RunState
    context: ContextManager | None = None
    hooks: tuple[RunHooks, ...] = ()
    tools: Mapping[str, Callable[..., Any]] = field(default_factory=dict)
    tool_hooks: tuple[ToolHooks, ...] = ()
    offered: OfferedTools | None = None


_BINDING: ContextVar[RunBinding | None] = ContextVar("retinue_run_binding", default=None)


def bind_run(binding: RunBinding) -> object:
    """Make `binding` the current run's (in the run's own task); returns the reset token."""
    return _BINDING.set(binding)


def unbind_run(token: object) -> None:
    """Undo `bind_run` with its token."""
    _BINDING.reset(token)  # type: ignore[arg-type]


def current_binding() -> RunBinding | None:
    """The binding of the run whose task (or worker thread) is running now, if any."""
    return _BINDING.get()


def _binding_of(ctx: RunContext[Any]) -> RunBinding | None:
    """The binding of the run `ctx` belongs to (None for a run no runner bound)."""
    binding = _BINDING.get()
    if binding is None or binding.state.run_id != ctx.run_id:
        return None
    return binding


class RunnerCapability(AbstractCapability[Any]):
    """Everything a runner does inside its runs, as one stateless capability.

    Before each request: the owner's hooks, then compaction once the context is over budget,
    which marks the run compacted and keeps the run's own messages it dropped, so what the
    run reports still accounts for them. It learns which tools end the run, so a call of one
    is reported as the answer, not as a tool call. A run on a model that serves tool results
    (a replay's, `retinue.llm.served_tools`) gets them from it instead of running the tools.
    """

    async def prepare_output_tools(
        self, ctx: RunContext[Any], tool_defs: list[ToolDefinition]
    ) -> list[ToolDefinition]:
        binding = _binding_of(ctx)
        if binding is not None:
            binding.state.output_tools.update(tool.name for tool in tool_defs)
        return tool_defs

    async def before_model_request(
        self, ctx: RunContext[Any], request_context: ModelRequestContext
    ) -> ModelRequestContext:
        binding = _binding_of(ctx)
        if binding is None:
            return request_context
        state = binding.state
        for hook in binding.hooks:
            await hook.before_model_request(ctx, state)
        request_context = _offered(request_context, binding.hooks)
        if binding.offered is not None:
            changed = binding.offered.changed(
                request_context.model_request_parameters, state.run_id
            )
            if changed is not None:
                state.tool_definitions.append((state.responses, changed))
        context = binding.context
        if context is None or not context.over_budget(request_context.messages):
            return request_context
        result = await context.compacted(request_context.messages, ctx.run_id)
        if result is None:
            return request_context
        state.compacted = True
        state.dropped.extend(m for m in result.dropped if getattr(m, "run_id", None) == ctx.run_id)
        request_context.messages = list(result.kept)
        ctx.messages[:] = result.kept
        return request_context

    async def after_model_request(
        self,
        ctx: RunContext[Any],
        *,
        request_context: ModelRequestContext,
        response: ModelResponse,
    ) -> ModelResponse:
        binding = _binding_of(ctx)
        if binding is not None:
            binding.state.responses += 1
            for hook in binding.hooks:
                await hook.after_model_request(ctx, binding.state, response)
        return response

    async def wrap_tool_execute(
        self,
        ctx: RunContext[Any],
        *,
        call: ToolCallPart,
        tool_def: ToolDefinition,
        args: ValidatedToolArgs,
        handler: WrapToolExecuteHandler,
    ) -> Any:
        binding = _binding_of(ctx)
        if binding is None or not binding.tool_hooks:
            return await _execute(ctx, call, args, handler)
        state, hooks = binding.state, binding.tool_hooks
        for hook in hooks:
            await hook.tool_starting(ctx, state, call, tool_def)
        try:
            result = await _execute(ctx, call, args, handler)
        except BaseException as exc:
            for hook in hooks:
                hook.tool_finished(state, call, None, exc)
            raise
        for hook in hooks:
            hook.tool_finished(state, call, result, None)
            result = hook.tool_result(ctx, call, result)
        return result

    async def after_output_validate(
        self, ctx: RunContext[Any], *, output_context: OutputContext, output: Any
    ) -> Any:
        binding = _binding_of(ctx)
        if binding is not None and not ctx.partial_output:  # the hooks judge whole outputs
            for hook in binding.hooks:
                output = await hook.after_output_validate(ctx, binding.state, output)
        return output


def _offered(
    request_context: ModelRequestContext, hooks: tuple[RunHooks, ...]
) -> ModelRequestContext:
    """The request with only the function tools every hook offers now.

    The tools held back leave this request's parameters only: the run's tool manager still
    knows them, so a model that calls one anyway (from an earlier request) has it run.
    """
    parameters = request_context.model_request_parameters
    tools = parameters.function_tools
    offered = [tool for tool in tools if all(hook.offers(tool.name) for hook in hooks)]
    if len(offered) != len(tools):
        request_context.model_request_parameters = dataclasses.replace(
            parameters, function_tools=offered
        )
    return request_context


RUNNER_CAPABILITY = RunnerCapability()
"""The one instance every runner's pydantic-ai agents carry."""


async def _execute(
    ctx: RunContext[Any],
    call: ToolCallPart,
    args: ValidatedToolArgs,
    handler: WrapToolExecuteHandler,
) -> Any:
    """Run the tool, unless the run's model serves its result (a replay's: the record answers)."""
    model = ctx.model
    if isinstance(model, ToolResultSource):
        served = model.served_tool_result(call)
        if served is not None:
            if served.retry is not None:
                raise ModelRetry(served.retry)
            return served.value
    return await handler(args)
