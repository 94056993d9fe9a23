"""`ReactAgent`: the model runner each agent owns, driven from that agent's own thread.

A run is submitted to the shared model loop and the caller blocks on its result. Around each
run the runner keeps the two usage tiers (the agent tier checked and charged before the run,
the run tier enforced by pydantic-ai inside it), keeps the history valid whatever way the run
ends, reports what happened as serializable events, and can be interrupted from any thread.
"""

from __future__ import annotations

import concurrent.futures
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, TypeVar, cast

from pydantic_ai import Agent, AgentCapability, RunContext, capture_run_messages
from pydantic_ai.agent import AgentRetries
from pydantic_ai.capabilities import AbstractCapability, ProcessHistory
from pydantic_ai.exceptions import RunCancelled, RunTimedOut, UsageLimitExceeded
from pydantic_ai.messages import ModelMessage, ModelResponse, ToolCallPart, UserContent
from pydantic_ai.models import Model
from pydantic_ai.output import OutputSpec
from pydantic_ai.tools import Tool, ToolDefinition
from pydantic_ai.toolsets import AbstractToolset
from pydantic_ai.usage import UsageLimits

from retinue.llm import history
from retinue.llm.config import CompactionConfig, ModelConfig, RuntimeConfig
from retinue.llm.context import ContextManager, EventSink, OperatorAction, emit_safely
from retinue.llm.errors import (
    RunInterruptedError,
    RunTimeoutError,
    RunUsageLimitError,
)
from retinue.llm.events import (
    ContextResetEvent,
    LlmEvent,
    LlmUsageEvent,
    ModelMessageEvent,
    RunFinishedEvent,
    RunStartedEvent,
    ToolCallEvent,
    message_to_data,
)
from retinue.llm.limits import AgentUsageLimits, RunUsageLimits
from retinue.llm.loop import get_model_loop
from retinue.llm.models import get_model, model_settings
from retinue.llm.run_parts import (
    RUN_TIMEOUT_GRACE,
    Outcome,
    RunKind,
    RunState,
    SystemPrompt,
    WithoutFunctionTools,
    new_run_id,
    render_system_block,
    status_of,
    usage_event,
)
from retinue.llm.usage import AgentUsageSummary, UsageLedger

T = TypeVar("T")


@dataclass
class _RunnerHooks(AbstractCapability[Any]):
    """The runner's own capability: learns which tools end the run (not reported as calls)."""

    runner: ReactAgent = field(repr=False)

    async def prepare_output_tools(
        self, ctx: RunContext[Any], tool_defs: list[ToolDefinition]
    ) -> list[ToolDefinition]:
        self.runner._note_output_tools(ctx.run_id, tool_defs)
        return tool_defs


class ReactAgent:
    """One agent's model runner: a pydantic-ai agent per output type, history, two tiers.

    Use it from one thread (the owning actor's); `interrupt()` and `current_run_id` are safe
    from any thread. `event_sink` receives every event on the calling thread and should not
    block (a pykka `tell` is right).
    """

    def __init__(
        self,
        name: str = "agent",
        *,
        model_cfg: ModelConfig | None = None,
        runtime_cfg: RuntimeConfig | None = None,
        run_usage_limits: RunUsageLimits | None = None,
        agent_usage_limits: AgentUsageLimits | None = None,
        compaction_cfg: CompactionConfig | None = None,
        system_prompts: Sequence[SystemPrompt] = (),
        tools: Sequence[Tool[Any] | Callable[..., Any]] = (),
        toolsets: Sequence[AbstractToolset[Any]] = (),
        capabilities: Sequence[AgentCapability[Any]] = (),
        event_sink: EventSink | None = None,
        model: Model | None = None,
    ) -> None:
        self.name = name
        self.model_cfg = model_cfg or ModelConfig()
        self.runtime_cfg = runtime_cfg or RuntimeConfig()
        self.run_usage_limits = run_usage_limits or RunUsageLimits()
        self.agent_usage_limits = agent_usage_limits or AgentUsageLimits()
        self.compaction_cfg = compaction_cfg or CompactionConfig()
        self.model = model if model is not None else get_model(self.model_cfg)
        self.system_block = render_system_block(system_prompts)
        self.event_sink = event_sink
        self.context = ContextManager(
            compaction_cfg=self.compaction_cfg,
            context_length=self.model_cfg.context_length,
            event_sink=self._emit,
            agent_name=name,
            summariser=self._summarise,
            instructions=self.system_block or None,
        )
        self._tools = list(tools)
        self._toolsets = list(toolsets)
        own: list[AgentCapability[Any]] = [_RunnerHooks(self)]
        if self.context.auto_compaction:
            own.append(ProcessHistory(self._process_history))
        self._capabilities: list[AgentCapability[Any]] = [*capabilities, *own]
        self._settings = model_settings(self.model_cfg, self.runtime_cfg)
        self._agents: dict[object, Agent[Any, Any]] = {}
        self._summary_agent: Agent[Any, str] | None = None
        self._lock = threading.Lock()
        self._current: RunState | None = None
        self._runs: dict[str, RunState] = {}
        self._usage = UsageLedger()
        self._summary_usage: dict[str | None, list[LlmUsageEvent]] = {}

    # ------------------------------------------------------------------ state

    @property
    def current_run_id(self) -> str | None:
        """The run in flight, or None when idle; readable from any thread."""
        state = self._current
        return state.run_id if state is not None else None

    @property
    def lifetime_usage(self) -> AgentUsageSummary:
        """What this agent has spent (runs admitted, requests, tokens, known cost): a copy."""
        return self.usage_summary()

    def usage_summary(self, by_run: bool = False) -> AgentUsageSummary:
        """The agent's usage ledger as a copy; `by_run=True` adds the recent runs' breakdown.

        The same ledger the agent tier is checked against, so what is reported is what is
        counted; safe from any thread.
        """
        with self._lock:
            return self._usage.summary(by_run=by_run)

    @property
    def messages(self) -> list[ModelMessage]:
        """A copy of the history."""
        return self.context.messages

    # ------------------------------------------------------------------ running

    def run_sync(
        self,
        prompt: str | Sequence[UserContent],
        output_type: OutputSpec[T],
        deps: Any = None,
    ) -> T:
        """One run: block until the model produced an `output_type`, or raise.

        Raises `AgentUsageLimitError` before anything runs when the lifetime budget is spent,
        `RunUsageLimitError` when this run exhausts its own, `RunInterruptedError` when it is
        interrupted, `RunTimeoutError` past `run_timeout`. In every case what the run did is
        kept in the history, repaired so the next run accepts it.
        """
        return cast(T, self._execute(prompt, output_type, deps, "run"))

    def conclude_without_tools(
        self,
        prompt: str | Sequence[UserContent],
        output_type: OutputSpec[T],
        deps: Any = None,
    ) -> T:
        """Exactly one model request with no function tool offered; charged like any run.

        The answer to a run-tier breach: the model can no longer act, only report.
        """
        return cast(T, self._execute(prompt, output_type, deps, "conclusion"))

    conclude_without_tools_sync = conclude_without_tools

    def interrupt(self, run_id: str | None = None) -> bool:
        """End the run in flight (only run `run_id` when given); safe from any thread.

        Wakes the thread waiting in `run_sync`, which stops waiting at once, fires the run's
        cancellation token (so even a long model request ends) and raises
        `RunInterruptedError`; a sync model function or tool blocked in its worker thread
        cannot hold the run, and its eventual result is discarded. Cheap enough to call for
        hundreds of agents in a row (a shutdown does). Returns whether a run was interrupted.
        """
        with self._lock:
            state = self._current
            if state is None or (run_id is not None and run_id != state.run_id):
                return False
            state.interrupted = True
        state.wake.set()  # the waiting thread cancels the run: this one returns at once
        return True

    def _execute(
        self, prompt: str | Sequence[UserContent], output_type: Any, deps: Any, kind: RunKind
    ) -> Any:
        loop = get_model_loop()
        if loop.in_loop_thread():
            raise RuntimeError(
                f"agent {self.name!r}: a blocking run cannot start on the model loop thread"
            )
        self._flush_summary_usage(None)
        agent = self._agent_for(output_type)  # a broken tool set fails here, uncharged
        with self._lock:
            if self._current is not None:
                raise RuntimeError(
                    f"agent {self.name!r} is already running {self._current.run_id}; "
                    "a ReactAgent runs one run at a time"
                )
            self._usage.check(self.agent_usage_limits, self.name)
            state = RunState(run_id=new_run_id(), kind=kind)
            self._usage.admit(state.run_id)  # charged before it runs: a failing run counts
            self._current = state
            self._runs[state.run_id] = state
        try:
            self._emit(RunStartedEvent(agent_name=self.name, run_id=state.run_id, kind=kind))
            before = self.context.messages
            run_prompt = self.context.take_prompt(prompt)
            try:
                future = loop.submit(self._drive(agent, state, run_prompt, before, deps))
            except Exception as exc:  # the loop is gone: this run fails, uncommitted
                outcome = Outcome(before, error=exc)
            else:
                outcome = self._wait(state, future, before)
            return self._finish(state, before, outcome)
        finally:
            with self._lock:
                self._current = None
                self._runs.pop(state.run_id, None)

    def _wait(
        self,
        state: RunState,
        future: concurrent.futures.Future[Outcome],
        before: list[ModelMessage],
    ) -> Outcome:
        """The run's outcome; or, once it is interrupted or past its time, what it did so far.

        The caller stops waiting as soon as the run is interrupted, even when the run cannot
        end yet because a sync model function or tool blocks its worker thread. The run is
        then abandoned: its cancellation token fires, its task is cancelled, whatever it
        produces later is discarded, and the history keeps what had been captured by then.
        """
        future.add_done_callback(lambda _: state.wake.set())
        try:
            state.wake.wait(self.runtime_cfg.run_timeout + RUN_TIMEOUT_GRACE)
        except BaseException:
            future.cancel()  # the caller gave up (e.g. KeyboardInterrupt): do not leak the run
            raise
        if future.done() and not future.cancelled():
            try:
                return future.result()
            except Exception as exc:  # the loop aborted the task
                return Outcome(list(state.messages or before), error=exc)
        captured = list(state.messages or before)
        error: Exception
        if state.interrupted:
            state.token.cancel()
            error = RunInterruptedError(state.run_id)
        elif future.cancelled():
            error = RuntimeError(f"run {state.run_id} was cancelled on the model loop")
        else:
            error = RunTimeoutError(state.run_id, self.runtime_cfg.run_timeout)
        future.cancel()
        return Outcome(captured, error=error)

    async def _drive(
        self,
        agent: Agent[Any, Any],
        state: RunState,
        prompt: str | Sequence[UserContent],
        message_history: list[ModelMessage],
        deps: Any,
    ) -> Outcome:
        conclusion = state.kind == "conclusion"
        limits = self.run_usage_limits.to_usage_limits(request_limit=1 if conclusion else None)
        with capture_run_messages() as captured:
            state.messages = captured
            try:
                result = await agent.run(
                    prompt,
                    message_history=message_history,
                    deps=deps,
                    usage_limits=limits,
                    cancellation_token=state.token,
                    timeout=self.runtime_cfg.run_timeout,
                    run_id=state.run_id,
                    capabilities=[WithoutFunctionTools()] if conclusion else None,
                )
            except Exception as exc:
                return Outcome(list(captured), error=exc)
        return Outcome(result.all_messages(), output=result.output)

    def _finish(self, state: RunState, before: list[ModelMessage], outcome: Outcome) -> Any:
        """Commit the run to the history, report it, and return its output or raise."""
        start = history.first_index_of_run(outcome.messages, state.run_id)
        new = outcome.messages[start:] if start is not None else []
        if outcome.error is not None:
            # repaired before it is reported, so the events replay to this very history (the
            # history given to the run is valid, so the run's own part is all that can break)
            new = history.repair(new)
        added = [*state.dropped, *new]
        # the run's messages are appended to the history it was given (so replaying the
        # events rebuilds exactly this list), unless the run compacted that history itself
        messages = list(outcome.messages) if state.compacted else [*before, *new]
        if outcome.error is not None and state.compacted:
            messages = history.repair(messages)
        self.context.replace(messages)

        for message in added:
            self._emit(
                ModelMessageEvent(agent_name=self.name, run_id=state.run_id, message=message)
            )
            if isinstance(message, ModelResponse):
                self._report_response(message, state)
        self._flush_summary_usage(state.run_id)
        if state.compacted:
            self._emit(
                ContextResetEvent(
                    agent_name=self.name,
                    run_id=state.run_id,
                    reason="compact",
                    messages=[message_to_data(m) for m in messages],
                )
            )

        error = self._map_error(state, outcome.error)
        status = status_of(error)
        self._emit(
            RunFinishedEvent(
                agent_name=self.name,
                run_id=state.run_id,
                status=status,
                error=None if error is None else f"{type(error).__name__}: {error}",
            )
        )
        if error is not None:
            raise error
        return outcome.output

    def _map_error(self, state: RunState, error: BaseException | None) -> BaseException | None:
        """pydantic-ai's endings in this layer's vocabulary (the original as the cause)."""
        if error is None or isinstance(error, RunInterruptedError | RunTimeoutError):
            return error
        if isinstance(error, RunTimedOut):
            mapped: BaseException = RunTimeoutError(state.run_id, self.runtime_cfg.run_timeout)
        elif isinstance(error, RunCancelled):
            mapped = RunInterruptedError(state.run_id)
        elif isinstance(error, UsageLimitExceeded):
            mapped = RunUsageLimitError(f"agent {self.name!r}, run {state.run_id}: {error}")
        else:
            return error
        mapped.__cause__ = error
        return mapped

    # ------------------------------------------------------------------ pydantic-ai agents

    def _agent_for(self, output_type: Any) -> Agent[Any, Any]:
        """The pydantic-ai agent for this output type, built once (schemas are costly)."""
        try:
            key: object = output_type
            hash(key)
        except TypeError:
            key = ("unhashable", id(output_type))
        agent = self._agents.get(key)
        if agent is None:
            runtime = self.runtime_cfg
            output_retries = runtime.output_retries
            retries: AgentRetries = {
                "tools": runtime.retries,
                "output": runtime.retries if output_retries is None else output_retries,
            }
            agent = Agent(
                self.model,
                output_type=output_type,
                instructions=self.system_block or None,
                tools=self._tools,
                toolsets=self._toolsets,
                capabilities=self._capabilities,
                retries=retries,
                end_strategy=runtime.end_strategy,
                model_settings=self._settings,
                tool_timeout=runtime.tool_timeout,
                name=self.name,
                defer_model_check=True,
            )
            self._agents[key] = agent
        return agent

    # ------------------------------------------------------------------ context

    def record_operator_action(self, text: OperatorAction) -> None:
        """A human-attributed action as a user-role message (see `ContextManager`)."""
        self.context.record_operator_action(text)

    def clear(self) -> None:
        """Forget the conversation (the usage ledger stays)."""
        self._refuse_while_running("clear")
        self.context.clear()

    def compact(self) -> bool:
        """Compact the history now by the configured strategy; returns whether it changed."""
        self._refuse_while_running("compact")
        changed = self.context.compact()
        self._flush_summary_usage(None)
        return changed

    def restore_context(self, events: Iterable[object]) -> None:
        """Rebuild the history and the usage ledger from recorded events."""
        self._refuse_while_running("restore")
        recorded = list(events)
        self.context.restore(recorded)
        ledger = UsageLedger.from_events(recorded)
        with self._lock:
            self._usage = ledger

    def _refuse_while_running(self, what: str) -> None:
        if self._current is not None:
            raise RuntimeError(
                f"agent {self.name!r} cannot {what} while run {self.current_run_id} is in flight"
            )

    async def _process_history(
        self, ctx: RunContext[Any], messages: list[ModelMessage]
    ) -> list[ModelMessage]:
        """Automatic compaction before a model request, once the context is over budget."""
        if not self.context.over_budget(messages):
            return messages
        result = await self.context.compacted(messages, ctx.run_id)
        if result is None:
            return messages
        state = self._runs.get(ctx.run_id) if ctx.run_id is not None else None
        if state is not None:
            state.compacted = True
            state.dropped.extend(
                m for m in result.dropped if getattr(m, "run_id", None) == ctx.run_id
            )
        return result.kept

    async def _summarise(self, messages: Sequence[ModelMessage], run_id: str | None) -> str:
        """A summary written by this agent's own model; its usage is charged to the agent."""
        if self._summary_agent is None:
            self._summary_agent = Agent(
                self.model,
                output_type=str,
                instructions=self.compaction_cfg.summary_instructions,
                model_settings=self._settings,
                name=f"{self.name}:summary",
                defer_model_check=True,
            )
        result = await self._summary_agent.run(
            history.render_transcript(messages), usage_limits=UsageLimits(request_limit=2)
        )
        events = [
            usage_event(self.name, message, run_id)
            for message in result.new_messages()
            if isinstance(message, ModelResponse)
        ]
        with self._lock:
            self._summary_usage.setdefault(run_id, []).extend(events)
        return result.output

    # ------------------------------------------------------------------ events

    def _emit(self, event: LlmEvent) -> None:
        with self._lock:
            self._usage.add(event)
        if self.event_sink is not None:
            emit_safely(self.event_sink, event)

    def _report_response(self, response: ModelResponse, state: RunState) -> None:
        self._emit(usage_event(self.name, response, state.run_id))
        for part in response.parts:
            if isinstance(part, ToolCallPart) and part.tool_name not in state.output_tools:
                self._emit(
                    ToolCallEvent(
                        agent_name=self.name,
                        run_id=state.run_id,
                        tool_name=part.tool_name,
                        args=part.args,
                        tool_call_id=part.tool_call_id,
                    )
                )

    def _flush_summary_usage(self, run_id: str | None) -> None:
        with self._lock:
            events = self._summary_usage.pop(run_id, [])
        for event in events:
            self._emit(event)

    def _note_output_tools(self, run_id: str | None, tool_defs: Sequence[ToolDefinition]) -> None:
        state = self._runs.get(run_id) if run_id is not None else None
        if state is not None:
            state.output_tools.update(tool.name for tool in tool_defs)
