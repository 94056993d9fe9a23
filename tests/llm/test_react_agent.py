"""`ReactAgent`: real pydantic-ai runs over scripted models."""

from __future__ import annotations

import asyncio
import pickle
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pytest
from pydantic import BaseModel
from pydantic_ai import RunContext
from pydantic_ai.capabilities import AbstractCapability
from pydantic_ai.messages import (
    ModelRequest,
    TextPart,
    ThinkingPart,
    ToolCallPart,
    UserPromptPart,
)
from pydantic_ai.models import ModelRequestContext
from retinue.llm import (
    ModelConfig,
    ModelMessageEvent,
    ReactAgent,
    RunFinishedEvent,
    RunInterruptedError,
    RunnerConfig,
    RunStartedEvent,
    RuntimeConfig,
    RunTimeoutError,
    RunUsageLimitError,
    SharedCapability,
    ToolCallEvent,
)
from retinue.llm.models import get_model
from retinue.llm.react_agent import render_system_block

from tests.llm import scripted
from tests.llm.conftest import Events
from tests.llm.scripted import Script, assert_valid_history, call

MakeAgent = Callable[..., ReactAgent]


class Answer(BaseModel):
    text: str
    confidence: int = 0


def lookup(key: str) -> str:
    """Look something up."""
    return f"value of {key}"


def final(**args: Any) -> list[ToolCallPart]:
    return [ToolCallPart("final_result", args)]


# ---------------------------------------------------------------- ordinary runs


def test_structured_output_and_events(make_agent: MakeAgent, events: Events) -> None:
    script = Script(steps=[call("lookup", key="x"), final(text="found", confidence=3)])
    agent = make_agent(script, tools=[lookup])
    answer = agent.run_sync("find x", Answer)
    assert answer == Answer(text="found", confidence=3)

    (started,) = events.of(RunStartedEvent)
    assert started.kind == "run"
    (tool_call,) = events.of(ToolCallEvent)  # the output tool is not a tool call
    assert (tool_call.tool_name, tool_call.args) == ("lookup", {"key": "x"})
    assert tool_call.run_id == started.run_id
    messages = events.of(ModelMessageEvent)
    assert [event.to_message() for event in messages] == agent.messages
    (finished,) = events.of(RunFinishedEvent)
    assert finished.status == "completed"
    for event in events:  # everything is serializable
        assert type(event).model_validate_json(event.model_dump_json()) == event


def test_one_pydantic_ai_agent_per_output_type(make_agent: MakeAgent) -> None:
    script = Script(steps=[final(text="a"), [TextPart("plain")], final(text="b")])
    agent = make_agent(script)
    agent.run_sync("one", Answer)
    agent.run_sync("two", str)
    agent.run_sync("three", Answer)
    assert len(agent._agents) == 2


def test_the_model_receives_the_history_as_pydantic_ai_alone_sends_it(
    make_agent: MakeAgent,
) -> None:
    """The runner hands pydantic-ai its history already merged as pydantic-ai would merge it
    (`SentHistory`): the model must see exactly what a plain pydantic-ai agent shows it."""
    from pydantic_ai import Agent

    def shape(messages: list[Any]) -> list[Any]:
        return [
            (
                type(m).__name__,
                m.instructions if isinstance(m, ModelRequest) else None,
                [
                    (type(p).__name__, getattr(p, "content", None), getattr(p, "args", None))
                    for p in m.parts
                ],
            )
            for m in messages
        ]

    ours, theirs = Script(steps=[final(text="a")] * 4), Script(steps=[final(text="a")] * 4)
    agent = make_agent(ours, system_prompts=["You are the tester."])
    plain = Agent(theirs.model, output_type=Answer, instructions="You are the tester.")

    async def plain_runs() -> None:
        history: list[Any] = []
        for prompt in ("one", "two", "three", "four"):
            result = await plain.run(prompt, message_history=history)
            history = result.all_messages()

    for prompt in ("one", "two", "three", "four"):
        agent.run_sync(prompt, Answer)
    asyncio.run(plain_runs())
    assert [shape(seen.messages) for seen in ours.seen] == [
        shape(seen.messages) for seen in theirs.seen
    ]
    assert len(agent.messages) == 12  # its own history keeps each run as the run made it


def test_system_block_is_frozen_and_sent_every_run(make_agent: MakeAgent) -> None:
    calls = iter(range(100))
    script = Script()
    prompts = ["You are the tester.", lambda: f"Call {next(calls)}"]
    agent = make_agent(script, system_prompts=prompts)
    assert agent.system_block == "You are the tester.\n\nCall 0"
    agent.run_sync("one", str)
    agent.run_sync("two", str)
    assert [seen.info.instructions for seen in script.seen] == [agent.system_block] * 2
    assert render_system_block(["  ", "a"]) == "a"


def test_current_run_id_is_visible_from_other_threads(make_agent: MakeAgent) -> None:
    seen: list[str | None] = []
    holder: dict[str, ReactAgent] = {}

    def observe(*_: object) -> list[TextPart]:
        reader = threading.Thread(target=lambda: seen.append(holder["agent"].current_run_id))
        reader.start()
        reader.join()
        return [TextPart("ok")]

    holder["agent"] = agent = make_agent(Script(steps=[observe]))
    assert agent.current_run_id is None
    agent.run_sync("go", str)
    assert seen[0] is not None and len(seen[0]) == 32
    assert agent.current_run_id is None


# ---------------------------------------------------------------- conclusion


def test_conclusion_makes_one_request_without_function_tools(
    make_agent: MakeAgent, events: Events
) -> None:
    script = Script(steps=[final(text="partial: could not check the rest")])
    agent = make_agent(script, tools=[lookup])
    answer = agent.conclude_without_tools("No tools left: answer now.", Answer)
    assert answer.text.startswith("partial")
    assert script.requests == 1
    (seen,) = script.seen
    assert seen.info.function_tools == []
    assert [tool.name for tool in seen.info.output_tools] == ["final_result"]
    assert events.of(RunStartedEvent)[0].kind == "conclusion"
    assert agent.lifetime_usage.runs == 1  # charged like any run


def test_conclusion_that_wants_a_tool_ends_after_one_request(make_agent: MakeAgent) -> None:
    script = Script(steps=[call("lookup", key="x")])
    agent = make_agent(script, tools=[lookup])
    with pytest.raises(RunUsageLimitError):
        agent.conclude_without_tools("answer now", Answer)
    assert script.requests == 1
    assert_valid_history(agent.messages)
    assert agent.conclude_without_tools_sync is not None  # the spec's name for the bridge


def test_ordinary_runs_still_offer_tools_after_a_conclusion(make_agent: MakeAgent) -> None:
    script = Script(steps=[[TextPart("concluded")], [TextPart("normal")]])
    agent = make_agent(script, tools=[lookup])
    agent.conclude_without_tools("stop", str)
    agent.run_sync("carry on", str)
    assert [tool.name for tool in script.seen[1].info.function_tools] == ["lookup"]


# ---------------------------------------------------------------- interruption


def slow_model(entered: threading.Event) -> Script:
    """A model whose request hangs until cancelled, after telling the test it is in."""

    async def hang(*_: object) -> list[TextPart]:
        entered.set()
        await asyncio.Event().wait()
        return [TextPart("never")]

    return Script(steps=[hang])


def test_interrupt_ends_a_hanging_model_request(make_agent: MakeAgent, events: Events) -> None:
    entered = threading.Event()
    agent = make_agent(slow_model(entered))
    interrupted: list[bool] = []

    def interrupter() -> None:
        assert entered.wait(10)
        interrupted.append(agent.interrupt("not-this-run"))  # a stale id does nothing
        interrupted.append(agent.interrupt(agent.current_run_id))

    thread = threading.Thread(target=interrupter)
    thread.start()
    started = time.monotonic()
    with pytest.raises(RunInterruptedError) as exc:
        agent.run_sync("take your time", str)
    elapsed = time.monotonic() - started
    thread.join()
    assert interrupted == [False, True]
    assert elapsed < 5
    run_id = events.of(RunStartedEvent)[0].run_id
    assert exc.value.run_id == run_id
    assert events.of(RunFinishedEvent)[0].status == "interrupted"

    # the history keeps the prompt, stays valid, and the next run works
    assert isinstance(agent.messages[0], ModelRequest)
    assert_valid_history(agent.messages)
    assert agent.run_sync("again", str) == "done"
    assert agent.interrupt() is False  # idle


def test_interrupt_during_a_tool_closes_the_dangling_call(make_agent: MakeAgent) -> None:
    entered = threading.Event()

    async def wait_for_it() -> str:
        """Wait for something that never comes."""
        entered.set()
        await asyncio.Event().wait()
        return "never"

    script = Script(steps=[call("wait_for_it")])
    agent = make_agent(script, tools=[wait_for_it])
    thread = threading.Thread(target=lambda: entered.wait(10) and agent.interrupt())
    thread.start()
    with pytest.raises(RunInterruptedError):
        agent.run_sync("wait", str)
    thread.join()
    assert_valid_history(agent.messages)
    assert agent.run_sync("next", str) == "done"


@dataclass
class CancelOnSecondRequest(AbstractCapability[Any]):
    """Stands in for the agent layer's cancel capability."""

    runner: dict[str, ReactAgent] = field(default_factory=dict)
    requests: int = 0
    raised: list[RunInterruptedError] = field(default_factory=list)

    async def before_model_request(
        self, ctx: RunContext[Any], request_context: ModelRequestContext
    ) -> ModelRequestContext:
        self.requests += 1
        if self.requests == 2:
            error = RunInterruptedError(self.runner["agent"].current_run_id, "cancelled by test")
            self.raised.append(error)
            raise error
        return request_context


def test_interruption_raised_by_a_capability_surfaces_unchanged(make_agent: MakeAgent) -> None:
    capability = CancelOnSecondRequest()
    script = Script(steps=[call("lookup", key="x")])
    agent = make_agent(script, tools=[lookup], capabilities=[capability])
    capability.runner["agent"] = agent
    with pytest.raises(RunInterruptedError) as exc:
        agent.run_sync("go", str)
    assert exc.value is capability.raised[0]
    assert script.requests == 1  # the second request never reached the model
    assert_valid_history(agent.messages)
    assert agent.run_sync("next", str) == "done"


@dataclass
class Doorbell(AbstractCapability[Any]):
    """Enqueues a notice before the second model request, as the arrival notice does."""

    requests: int = 0

    async def before_model_request(
        self, ctx: RunContext[Any], request_context: ModelRequestContext
    ) -> ModelRequestContext:
        self.requests += 1
        if self.requests == 2:
            ctx.enqueue("NOTICE: 1 new message", priority="asap")
        return request_context


def test_an_asap_notice_from_before_model_request_joins_that_request(
    make_agent: MakeAgent,
) -> None:
    script = Script(steps=[call("lookup", key="x"), [TextPart("seen it")]])
    agent = make_agent(script, tools=[lookup], capabilities=[Doorbell()])
    assert agent.run_sync("go", str) == "seen it"
    assert script.requests == 2  # no extra request: delivered into the pending one
    delivered = [
        p.content for m in script.seen[1].messages for p in m.parts if isinstance(p, UserPromptPart)
    ]
    assert delivered == ["go", "NOTICE: 1 new message"]
    # recorded in the history as its own user-role request after the tool result
    notice = agent.messages[-2]
    assert isinstance(notice, ModelRequest)
    assert [type(p) for p in notice.parts] == [UserPromptPart]


def test_run_timeout_keeps_the_history(make_agent: MakeAgent) -> None:
    entered = threading.Event()
    agent = make_agent(slow_model(entered), runtime_cfg=RuntimeConfig(run_timeout=0.2))
    with pytest.raises(RunTimeoutError, match=r"timeout of 0\.2s"):
        agent.run_sync("too slow", str)
    assert entered.is_set()
    assert_valid_history(agent.messages)


# ---------------------------------------------------------------- robustness


def test_an_unknown_part_kind_passes_through(make_agent: MakeAgent, events: Events) -> None:
    script = Script(
        steps=[
            [ThinkingPart("let me think"), ToolCallPart("lookup", {"key": "x"})],
            [ThinkingPart("done thinking"), TextPart("answer")],
        ]
    )
    agent = make_agent(script, tools=[lookup])
    assert agent.run_sync("think", str) == "answer"
    assert any(
        isinstance(p, ThinkingPart) for m in agent.messages for p in m.parts
    )  # kept, untouched
    restored = make_agent()
    restored.restore_context(events)
    assert restored.messages == agent.messages
    assert agent.run_sync("again", str) == "done"


def test_errors_survive_pickling() -> None:
    error = pickle.loads(pickle.dumps(RunInterruptedError("run-1", "stopped by /stop")))
    assert (error.run_id, str(error)) == ("run-1", "stopped by /stop")
    timeout = pickle.loads(pickle.dumps(RunTimeoutError("run-2", 1.5)))
    assert (timeout.run_id, timeout.timeout) == ("run-2", 1.5)


def test_a_failing_event_sink_does_not_break_a_run(make_agent: MakeAgent) -> None:
    def sink(event: object) -> None:
        raise RuntimeError("sink down")

    agent = make_agent(event_sink=sink)
    assert agent.run_sync("go", str) == "done"


def test_one_run_at_a_time_and_never_from_the_loop_thread(make_agent: MakeAgent) -> None:
    holder: dict[str, ReactAgent] = {}
    errors: list[str] = []

    def attempt() -> None:
        try:
            holder["agent"].run_sync("nested", str)
        except RuntimeError as exc:
            errors.append(str(exc))

    def reenter(*_: object) -> list[TextPart]:
        attempt()  # on the model loop thread itself
        other = threading.Thread(target=attempt)  # from another thread, mid-run
        other.start()
        other.join()
        return [TextPart("ok")]

    holder["agent"] = agent = make_agent(Script(steps=[reenter]))
    assert agent.run_sync("outer", str) == "ok"
    assert "cannot start on the model loop thread" in errors[0]
    assert "already running" in errors[1]
    assert agent.lifetime_usage.runs == 1  # refused runs are not charged


class NoteRequests(SharedCapability):
    """Notes each model request's agent, keeping nothing of its own."""

    def __init__(self, seen: list[str]) -> None:
        self.seen = seen

    async def before_model_request(
        self, ctx: RunContext[Any], request_context: ModelRequestContext
    ) -> ModelRequestContext:
        self.seen.append(str(ctx.deps))
        return request_context


def test_runners_alike_share_their_agent_with_a_shared_capability_and_not_with_others(
    make_agent: MakeAgent,
) -> None:
    seen: list[str] = []
    note = NoteRequests(seen)
    script = Script(steps=[[TextPart("one")], [TextPart("two")], [TextPart("three")]])
    first = make_agent(script, name="@A", label="Worker", capabilities=[note])
    second = make_agent(script, name="@B", label="Worker", capabilities=[note])
    apart = make_agent(script, name="@C", label="Worker", capabilities=[Doorbell()])

    answers = [
        first.run_sync("1", str, deps="@A"),
        second.run_sync("2", str, deps="@B"),
        apart.run_sync("3", str, deps="@C"),
    ]

    assert answers == ["one", "two", "three"]
    assert first._agents[str] is second._agents[str]  # one pydantic-ai agent for both
    assert apart._agents[str] is not first._agents[str]  # a capability of its own: its own
    assert seen == ["@A", "@B"]  # the shared capability ran for each of its runners


def test_two_hundred_agents_on_two_hundred_threads_share_one_model() -> None:
    config = ModelConfig(provider="function", model=f"{scripted.__name__}:async_echo")
    count = 200
    barrier = threading.Barrier(count)
    results: list[str] = []
    models: set[int] = set()
    failures: list[BaseException] = []

    def worker(n: int) -> None:
        try:
            agent = ReactAgent(f"agent-{n}", RunnerConfig(model_cfg=config))
            models.add(id(agent.model))
            barrier.wait(30)  # every run in flight at once
            results.append(agent.run_sync(str(n), str))
        except BaseException as exc:
            failures.append(exc)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert not failures, failures[:3]
    assert sorted(results) == sorted(f"echo: {n}" for n in range(count))
    assert models == {id(get_model(config))}  # one model object for the whole team


def test_react_agent_keeps_the_names_tests_and_the_profiler_use() -> None:
    # Reporting, agent building, hooks and summaries live in their own modules; the runner
    # keeps its control flow under the names benchmarks/profiling.py wraps.
    names = [
        "run_sync",
        "conclude_without_tools",
        "conclude_without_tools_sync",
        "interrupt",
        "current_run_id",
        "usage_summary",
        "lifetime_usage",
        "messages",
        "clear",
        "compact",
        "restore_context",
        "record_operator_action",
        "_execute",
        "_wait",
        "_drive",
        "_finish",
        "_agent_for",
        "_emit",
    ]
    assert [name for name in names if not hasattr(ReactAgent, name)] == []
