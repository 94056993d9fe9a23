"""One run on the shared model loop, and the owning thread's wait for it.

`ReactAgent` submits `drive` to the loop and blocks in `wait_for_outcome`: the run's outcome,
or, once it is interrupted or past its time, what it did so far. Both are the runner's own
methods (`ReactAgent._drive`, `ReactAgent._wait`: the names a profiler wraps), defined here
because the two halves run on different threads and share only the `RunState`.
"""

from __future__ import annotations

import concurrent.futures
from typing import TYPE_CHECKING, Any

from pydantic_ai import Agent, capture_run_messages
from pydantic_ai.messages import ModelMessage
from pydantic_ai.models import Model
from pydantic_ai.settings import ModelSettings
from pydantic_ai.tools import DeferredToolResults

from retinue.llm.config import ModelConfig
from retinue.llm.errors import RunInterruptedError, RunTimeoutError
from retinue.llm.prompt import UserPrompt
from retinue.llm.run_agents import WITHOUT_FUNCTION_TOOLS
from retinue.llm.run_hooks import RunBinding, RunState, bind_run, unbind_run
from retinue.llm.run_report import Outcome
from retinue.llm.streaming import output_stream

if TYPE_CHECKING:
    from retinue.llm.react_agent import ReactAgent

RUN_TIMEOUT_GRACE = 10.0
"""Extra seconds the caller waits past pydantic-ai's own run timeout before giving up."""

#: The model switched to (`ReactAgent.use_model`): its config, model and request settings.
Switched = tuple[ModelConfig, Model, ModelSettings]


def wait_for_outcome(
    runner: ReactAgent,
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
    run_timeout = runner.runtime_cfg.run_timeout
    future.add_done_callback(lambda _: state.wake.set())
    try:
        state.wake.wait(run_timeout + RUN_TIMEOUT_GRACE)
    except BaseException:
        future.cancel()  # the caller gave up (e.g. KeyboardInterrupt): do not leak the run
        raise
    # An interrupt wins over a result that came in after it: the cancel was stamped with
    # this run while it was in flight, so its output is not delivered.
    if not state.interrupted and future.done() and not future.cancelled():
        try:
            return future.result()
        except Exception as exc:  # noqa: BLE001 - the loop aborted the task
            return Outcome(list(state.messages or before), error=exc)
    captured = list(state.messages or before)
    error: Exception
    if state.interrupted:
        state.token.cancel()
        error = RunInterruptedError(state.run_id)
    elif future.cancelled():
        error = RuntimeError(f"run {state.run_id} was cancelled on the model loop")
    else:
        error = RunTimeoutError(state.run_id, run_timeout)
    future.cancel()
    return Outcome(captured, error=error)


async def drive(  # noqa: PLR0917 - `ReactAgent._drive`: `runner` is its self
    runner: ReactAgent,
    agent: Agent[Any, Any],
    binding: RunBinding,
    prompt: UserPrompt | None,
    message_history: list[ModelMessage],
    deps: Any,
    *,
    instructions: str | None,
    switched: Switched | None = None,
    deferred: DeferredToolResults | None = None,
) -> Outcome:
    """Run `agent` once on the model loop, within the run tier (a conclusion: one request),
    on the model switched to if any, else the runner's; any error is the run's outcome."""
    state = binding.state
    conclusion = state.kind == "conclusion"
    cap = 1 if conclusion else state.team_request_cap  # None: the run tier's own
    limits = runner.run_usage_limits.to_usage_limits(request_limit=cap)
    run_timeout = runner.runtime_cfg.run_timeout
    token = bind_run(binding)  # in this run's own task: its steps and workers see it
    try:
        with capture_run_messages() as captured:
            state.messages = captured
            try:
                result = await agent.run(
                    prompt,
                    message_history=message_history,
                    deferred_tool_results=deferred,
                    deps=deps,
                    usage_limits=limits,
                    cancellation_token=state.token,
                    timeout=run_timeout,
                    run_id=state.run_id,
                    instructions=instructions,
                    capabilities=[WITHOUT_FUNCTION_TOOLS] if conclusion else None,
                    model=switched[1] if switched is not None else None,
                    event_stream_handler=output_stream(
                        runner.name, state.run_id, switched[1] if switched else runner.model
                    ),
                    model_settings=switched[2] if switched is not None else None,
                )
            except Exception as exc:  # noqa: BLE001 - any model/tool error is the run's outcome
                return Outcome(list(captured), error=exc)
    finally:
        unbind_run(token)
    return Outcome(result.all_messages(), output=result.output)
