"""`ReactAgent`: the model runner each agent owns, driven from that agent's own thread.

A run is submitted to the shared model loop and the caller blocks on its result. Around each
run the runner keeps the usage tiers (the team's budget and the agent tier checked and
charged before the run, the run tier enforced by pydantic-ai inside it), keeps the history
valid whatever way the run ends, reports what happened as serializable events, and can be
interrupted from any thread. The run itself and the wait for it are in `run_drive`, the
runner's pydantic-ai agents in `runner_agents`.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterable
from typing import Any, TypeVar, cast

from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage
from pydantic_ai.output import OutputSpec
from pydantic_ai.tools import DeferredToolResults

from retinue.llm.config import ModelConfig
from retinue.llm.context import ContextManager, OperatorAction, emit_safely
from retinue.llm.events import LlmEvent, ModelSwitchedEvent, RunStartedEvent
from retinue.llm.history import SentHistory
from retinue.llm.loop import get_model_loop
from retinue.llm.models import get_model, model_settings
from retinue.llm.offered_tools import OfferedTools
from retinue.llm.prompt import UserPrompt, render_system_block
from retinue.llm.run_agents import member_tools
from retinue.llm.run_budget import admit_run, request_cap, team_cut, with_budget
from retinue.llm.run_drive import RUN_TIMEOUT_GRACE, Switched, drive, wait_for_outcome
from retinue.llm.run_hooks import RunBinding, RunKind, RunState, new_run_id
from retinue.llm.run_report import (
    Outcome,
    committed,
    compaction_event,
    finished_event,
    log_finished,
    message_events,
    run_error,
)
from retinue.llm.runner_agents import RunnerAgents
from retinue.llm.runner_config import RunnerConfig
from retinue.llm.summary import SummaryWriter
from retinue.llm.team_usage import charge_event
from retinue.llm.usage import AgentUsageSummary, UsageLedger, iter_llm_events

__all__ = ["RUN_TIMEOUT_GRACE", "ReactAgent", "render_system_block"]

T = TypeVar("T")

logger = logging.getLogger(__name__)


class ReactAgent:
    """One agent's model runner: a pydantic-ai agent per output type, history, two tiers.

    Built from its name and a `RunnerConfig`. Use it from one thread (the owning actor's);
    `interrupt()` and `current_run_id` are safe from any thread. The config's `event_sink`
    receives every event on the calling thread and should not block (a pykka `tell` is
    right). Without `capabilities` of its own, its pydantic-ai agents are shared with every
    runner of the same shape and `label` (`retinue.llm.run_agents`): its system block and
    tools travel with each of its runs.
    """

    def __init__(self, name: str = "agent", config: RunnerConfig | None = None) -> None:
        config = config if config is not None else RunnerConfig()
        self.name = name
        #: What it was built from; the attributes below are its parts, resolved.
        self.config = config
        #: The name its pydantic-ai agents carry: runners of one shape and label share them.
        self.agent_label = config.label or name
        self.model_cfg = config.model_cfg
        self.runtime_cfg = config.runtime_cfg
        self.run_usage_limits = config.run_usage_limits
        self.agent_usage_limits = config.agent_usage_limits
        self.compaction_cfg = config.compaction_cfg
        self.model = config.model if config.model is not None else get_model(self.model_cfg)
        self.system_block = render_system_block(config.system_prompts)
        self.event_sink = config.event_sink
        #: The team's shared budget, asked before each run and charged with its usage.
        self.team_budget = config.team_budget
        self._settings = model_settings(self.model_cfg, self.runtime_cfg)
        self._summary = SummaryWriter(
            self.model,
            name=name,
            instructions=self.compaction_cfg.summary_instructions,
            settings=self._settings,
        )
        self.context = ContextManager(
            compaction_cfg=self.compaction_cfg,
            context_length=self.model_cfg.context_length,
            event_sink=self._emit,
            agent_name=name,
            summariser=self._summary,
            instructions=self.system_block or None,
        )
        self._run_hooks = tuple(config.run_hooks)
        self._tool_hooks = tuple(config.tool_hooks)
        self._compaction = self.context if self.context.auto_compaction else None
        self._binding_tools = member_tools(list(config.tools))
        #: The tool definitions it recorded last: a change is recorded, not every request.
        self._offered = OfferedTools(name)
        #: Its pydantic-ai agents by output type (`runner_agents`); `_agents` is their dict.
        self._run_agents = RunnerAgents(
            self.model,
            name=name,
            label=self.agent_label,
            system_block=self.system_block,
            tools=config.tools,
            toolsets=config.toolsets,
            capabilities=config.capabilities,
            runtime=self.runtime_cfg,
            settings=self._settings,
        )
        self._agents = self._run_agents.by_output
        #: The history as pydantic-ai sends it, kept from run to run (see `SentHistory`).
        self._sent = SentHistory()
        self._lock = threading.Lock()
        self._current: RunState | None = None
        self._usage = UsageLedger()
        #: The model switched to (`use_model`): its config, model and request settings.
        self._switched: Switched | None = None

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

    # ------------------------------------------------------------------ the model in force

    @property
    def model_in_force(self) -> ModelConfig:
        """The model the next run uses: the one switched to, else the configured one."""
        switched = self._switched
        return switched[0] if switched is not None else self.model_cfg

    def use_model(self, model_cfg: ModelConfig | None) -> None:
        """Run on `model_cfg` from the next run on (None: the configured model again).

        The run in flight, if any (a tool may call this), keeps the model it started with.
        The model is the shared one for that configuration, with that configuration's
        request settings; compaction summaries stay on the configured model. A model that
        cannot be built raises `ConfigError` and changes nothing. Reported as a
        `ModelSwitchedEvent`, which `restore_context` applies again.
        """
        self._switch(model_cfg)
        self._emit(
            ModelSwitchedEvent(
                agent_name=self.name, run_id=self.current_run_id, model_cfg=model_cfg
            )
        )

    def _switch(self, model_cfg: ModelConfig | None) -> None:
        switched: Switched | None = None
        if model_cfg is not None and model_cfg != self.model_cfg:
            model = get_model(model_cfg)
            switched = (model_cfg, model, model_settings(model_cfg, self.runtime_cfg))
        with self._lock:
            self._switched = switched

    # ------------------------------------------------------------------ running

    def run_sync(
        self,
        prompt: UserPrompt,
        output_type: OutputSpec[T],
        deps: Any = None,
        *,
        deferred: DeferredToolResults | None = None,
    ) -> T:
        """One run: block until the model produced an `output_type`, or raise.

        With `deferred`, the run goes on from a run that ended waiting for deferred tool
        calls (the history ends there) with their answers; `prompt` is not sent then, and
        operator actions wait for the next run.

        Raises `AgentUsageLimitError` before anything runs when the lifetime budget is spent,
        `TeamBudgetExhaustedError` when the team's is, `RunUsageLimitError` when this run
        exhausts its own, `RunInterruptedError` when it is interrupted, `RunTimeoutError` past
        `run_timeout`. In every case what the run did is
        kept in the history, repaired so the next run accepts it.
        """
        return cast(T, self._execute(prompt, output_type, deps, "run", deferred))

    def conclude_without_tools(
        self, prompt: UserPrompt, output_type: OutputSpec[T], deps: Any = None
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
        self,
        prompt: UserPrompt,
        output_type: Any,
        deps: Any,
        kind: RunKind,
        deferred: DeferredToolResults | None = None,
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
            remaining = admit_run(self.team_budget, self.name)
            state = RunState(run_id=new_run_id(), kind=kind)
            self._usage.admit(state.run_id)  # charged before it runs: a failing run counts
            self._current = state
            switched = self._switched
        try:
            state.team_request_cap = request_cap(self.run_usage_limits, remaining)
            hooks = with_budget(self._run_hooks, self.team_budget, self.name, remaining)
            binding = RunBinding(
                state, self._compaction, hooks, self._binding_tools, self._tool_hooks, self._offered
            )
            for hook in self._run_hooks:
                hook.run_starting(state)
            self._emit(RunStartedEvent(agent_name=self.name, run_id=state.run_id, kind=kind))
            logger.info("%s: run %s started", self.name, state.run_id[:8])
            before = self.context.messages
            run_prompt = self.context.take_prompt(prompt) if deferred is None else None
            try:
                sent = self._sent.of(before)  # pydantic-ai's own merging, done once
                run = self._drive(
                    agent,
                    binding,
                    run_prompt,
                    sent,
                    deps,
                    instructions=self._run_agents.run_instructions,
                    switched=switched,
                    deferred=deferred,
                )
                future = loop.submit(run)
            except Exception as exc:  # noqa: BLE001 - the loop is gone: this run fails, uncommitted
                outcome = Outcome(before, error=exc)
            else:
                outcome = self._wait(state, future, before)
            return self._finish(state, before, outcome)
        finally:
            with self._lock:
                self._current = None
            if self.team_budget is not None:
                self.team_budget.release(self.name)

    #: The run on the model loop and the wait for it (`run_drive`), as this runner's methods.
    _drive = drive
    _wait = wait_for_outcome

    def _finish(self, state: RunState, before: list[ModelMessage], outcome: Outcome) -> Any:
        """Commit the run to the history, report it, and return its output or raise."""
        messages, added = committed(state, before, outcome)
        self.context.replace(messages)
        for event in message_events(self.name, state, added):
            self._emit(event)
        self._flush_summary_usage(state.run_id)
        if state.compacted:
            self._emit(compaction_event(self.name, state.run_id, messages))
        with self._lock:
            usage = self._usage.run_summary(state.run_id)
        error = run_error(self.name, state.run_id, outcome.error, self.runtime_cfg.run_timeout)
        error = team_cut(error, state.team_request_cap, usage)
        finished = finished_event(self.name, state.run_id, error)
        self._emit(finished)
        log_finished(finished, usage)
        if error is not None:
            raise error
        return outcome.output

    def _agent_for(self, output_type: Any) -> Agent[Any, Any]:
        """The pydantic-ai agent for this output type (see `RunnerAgents.agent_for`)."""
        return self._run_agents.agent_for(output_type)

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
        switches = [e for e in iter_llm_events(recorded) if isinstance(e, ModelSwitchedEvent)]
        if switches:
            self._switch(switches[-1].model_cfg)
        with self._lock:
            self._usage = ledger

    def _refuse_while_running(self, what: str) -> None:
        if self._current is not None:
            raise RuntimeError(
                f"agent {self.name!r} cannot {what} while run {self.current_run_id} is in flight"
            )

    # ------------------------------------------------------------------ events

    def _emit(self, event: LlmEvent) -> None:
        with self._lock:
            self._usage.add(event)
        if self.team_budget is not None:
            charge_event(self.team_budget, event)
        if self.event_sink is not None:
            emit_safely(self.event_sink, event)

    def _flush_summary_usage(self, run_id: str | None) -> None:
        """Charge and report what the summaries written for `run_id` cost."""
        for event in self._summary.take_usage(run_id):
            self._emit(event)
