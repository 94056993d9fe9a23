"""Nothing escapes the model loop: `SystemExit` or `KeyboardInterrupt` fails a run, not the loop.

pydantic-ai runs sync model functions and sync tools in worker threads and hands their
exceptions back to tasks of its own on the loop; asyncio lets those two exceptions out of
`run_forever`, which used to end the loop thread and with it every agent in the process.
"""

from __future__ import annotations

import asyncio
import contextvars
import threading
from collections.abc import Iterator

import anyio.to_thread
import pytest
from pydantic_ai.messages import ModelMessage, ModelRequest, ModelResponse, TextPart, UserPromptPart
from pydantic_ai.models.function import AgentInfo, FunctionModel
from retinue.llm import ReactAgent, RunnerConfig
from retinue.llm.loop import LoopTaskAbortedError, ModelLoop, get_model_loop

from tests.llm.scripted import assert_valid_history

ABORTS = [SystemExit, KeyboardInterrupt]


@pytest.fixture
def loop() -> Iterator[ModelLoop]:
    """A private loop, so a failure here cannot disturb the process-wide one."""
    model_loop = ModelLoop(thread_limit=4, name="test-containment-loop")
    yield model_loop
    model_loop.stop()


def _prompt(messages: list[ModelMessage]) -> str:
    last = messages[-1]
    assert isinstance(last, ModelRequest)
    return " ".join(str(p.content) for p in last.parts if isinstance(p, UserPromptPart))


def _fine_agent() -> ReactAgent:
    def fine(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        return ModelResponse(parts=[TextPart("fine")])

    return ReactAgent("bystander", RunnerConfig(model=FunctionModel(fine)))


@pytest.mark.parametrize("abort", ABORTS)
def test_an_abort_in_a_sync_model_function_fails_that_run_only(
    abort: type[BaseException],
) -> None:
    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if _prompt(messages) == "abort":
            raise abort()
        return ModelResponse(parts=[TextPart("recovered")])

    agent = ReactAgent("aborter", RunnerConfig(model=FunctionModel(model)))
    with pytest.raises(LoopTaskAbortedError, match=abort.__name__):
        agent.run_sync("abort", str)
    assert get_model_loop().is_alive()
    assert agent.run_sync("again", str) == "recovered"
    assert _fine_agent().run_sync("hello", str) == "fine"


@pytest.mark.parametrize("abort", ABORTS)
def test_an_abort_in_a_sync_tool_fails_that_run_only(abort: type[BaseException]) -> None:
    from pydantic_ai.messages import ToolCallPart

    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        if _prompt(messages) == "use the tool":
            return ModelResponse(parts=[ToolCallPart("leave", {})])
        return ModelResponse(parts=[TextPart("recovered")])

    def leave() -> str:
        """Leave the process."""
        raise abort()

    agent = ReactAgent("aborter", RunnerConfig(model=FunctionModel(model), tools=[leave]))
    with pytest.raises(LoopTaskAbortedError, match=abort.__name__):
        agent.run_sync("use the tool", str)
    assert get_model_loop().is_alive()
    assert_valid_history(agent.messages)
    assert agent.run_sync("again", str) == "recovered"
    assert _fine_agent().run_sync("hello", str) == "fine"


def test_many_runs_aborting_at_once_leave_the_loop_running() -> None:
    def model(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        raise SystemExit(1)

    failures: list[BaseException] = []

    def one() -> None:
        try:
            ReactAgent("aborter", RunnerConfig(model=FunctionModel(model))).run_sync("go", str)
        except BaseException as exc:
            failures.append(exc)

    threads = [threading.Thread(target=one) for _ in range(30)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert [type(f) for f in failures] == [LoopTaskAbortedError] * 30
    assert _fine_agent().run_sync("hello", str) == "fine"


@pytest.mark.parametrize("abort", ABORTS)
def test_an_abort_in_a_child_task_is_contained(loop: ModelLoop, abort: type[BaseException]) -> None:
    async def child() -> None:
        raise abort()

    async def parent() -> None:
        await asyncio.get_running_loop().create_task(child())

    with pytest.raises(LoopTaskAbortedError, match=abort.__name__):
        loop.run(parent(), timeout=5)
    assert loop.is_alive()


@pytest.mark.parametrize("abort", ABORTS)
def test_an_abort_in_a_loop_callback_does_not_stop_the_loop(
    loop: ModelLoop, abort: type[BaseException]
) -> None:
    def callback() -> None:
        raise abort()

    async def answer() -> int:
        return 42

    loop.loop.call_soon_threadsafe(callback)
    assert loop.run(answer(), timeout=5) == 42
    assert loop.is_alive()


def test_the_callers_context_reaches_the_run_and_its_worker_threads(loop: ModelLoop) -> None:
    """What lets `ask` recognise a tool of a run asking the agent that waits for that run."""
    marker: contextvars.ContextVar[str] = contextvars.ContextVar("marker", default="unset")

    async def read() -> tuple[str, str]:
        in_thread = await anyio.to_thread.run_sync(marker.get)
        return marker.get(), in_thread

    seen: list[tuple[str, str]] = []

    def caller() -> None:
        marker.set("the caller's")
        seen.append(loop.run(read(), timeout=5))

    thread = threading.Thread(target=caller)
    thread.start()
    thread.join(10)
    assert seen == [("the caller's", "the caller's")]
    assert loop.run(read(), timeout=5) == ("unset", "unset")
