"""The context manager: operator actions, clear, compaction, restore."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import pytest
from pydantic_ai.messages import (
    ModelMessage,
    ModelMessagesTypeAdapter,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo
from retinue.llm import (
    CompactionConfig,
    ContextManager,
    ContextResetEvent,
    LlmUsageEvent,
    ModelConfig,
    ModelMessageEvent,
    ReactAgent,
    RunInterruptedError,
)
from retinue.llm import history as hist
from retinue.llm.events import message_to_data

from tests.llm.conftest import Events
from tests.llm.scripted import Script, assert_valid_history, call

MakeAgent = Callable[..., ReactAgent]


def lookup(key: str) -> str:
    """Look something up."""
    return f"value of {key}"


def prompts(message: ModelMessage) -> list[str]:
    return [str(p.content) for p in message.parts if isinstance(p, UserPromptPart)]


def dump(messages: list[ModelMessage]) -> bytes:
    return ModelMessagesTypeAdapter.dump_json(messages)


# ---------------------------------------------------------------- operator actions


def test_operator_actions_before_the_first_run_are_folded_in(
    make_agent: MakeAgent, events: Events
) -> None:
    script = Script()
    agent = make_agent(script, system_prompts=["You are A."])
    agent.record_operator_action("The human ran /team_members: @Ada, @Bob")
    agent.record_operator_action("**Context update 1** — current state.")
    assert agent.messages == []
    assert not events  # nothing recorded until it is part of a run

    agent.run_sync("Hello", str)
    first = script.seen[0].messages
    assert len(first) == 1
    assert prompts(first[0]) == [
        "The human ran /team_members: @Ada, @Bob\n\n**Context update 1** — current state.\n\nHello"
    ]
    assert script.seen[0].info.instructions == "You are A."  # the system block still goes out
    assert agent.context.pending_operator_actions == []


def test_folding_keeps_multimodal_prompts_as_lists() -> None:
    context = ContextManager()
    context.record_operator_action("note")
    assert context.take_prompt(["look", "here"]) == ["note\n\n", "look", "here"]
    assert context.take_prompt("plain") == "plain"


def test_operator_actions_after_the_first_run_are_user_messages(
    make_agent: MakeAgent, events: Events
) -> None:
    script = Script()
    agent = make_agent(script)
    agent.run_sync("first", str)
    agent.record_operator_action("The human ran /hire_member Developer: @Dev1 hired")
    action = agent.messages[-1]
    assert isinstance(action, ModelRequest)
    assert prompts(action) == ["The human ran /hire_member Developer: @Dev1 hired"]
    recorded = events.of(ModelMessageEvent)[-1]
    assert recorded.run_id is None
    assert recorded.to_message() == action

    agent.run_sync("second", str)
    seen = [text for m in script.seen[1].messages for text in prompts(m)]
    assert seen == ["first", "The human ran /hire_member Developer: @Dev1 hired", "second"]
    assert_valid_history(agent.messages)


# ---------------------------------------------------------------- clear


def test_clear_empties_the_history_and_the_next_run_starts_fresh(
    make_agent: MakeAgent, events: Events
) -> None:
    script = Script(steps=[call("lookup", key="x")])
    agent = make_agent(script, tools=[lookup])
    agent.run_sync("first", str)
    agent.clear()
    assert agent.messages == []
    assert events.of(ContextResetEvent)[-1].reason == "clear"
    agent.record_operator_action("The human cleared the context.")  # folded again
    agent.run_sync("second", str)
    assert [prompts(m) for m in script.seen[-1].messages] == [
        ["The human cleared the context.\n\nsecond"]
    ]
    assert agent.lifetime_usage.runs == 2  # clearing the context does not refund the budget

    restored = make_agent()
    restored.restore_context(events)
    assert dump(restored.messages) == dump(agent.messages)


# ---------------------------------------------------------------- compaction


def test_window_cuts_at_a_user_prompt_and_drops_orphaned_results() -> None:
    messages: list[ModelMessage] = [
        ModelRequest(parts=[UserPromptPart("start")]),
        ModelResponse(parts=[ToolCallPart("lookup", {"key": "a"}, tool_call_id="a")]),
        ModelRequest(
            parts=[ToolReturnPart("lookup", "value", tool_call_id="a"), UserPromptPart("next")]
        ),
        ModelResponse(parts=[TextPart("answer")]),
    ]
    cut, kept = hist.window(messages, keep_last=2)
    assert cut == 2
    assert [type(p) for p in kept[0].parts] == [UserPromptPart]
    assert_valid_history(kept)
    assert hist.window(messages, keep_last=10) == (0, messages)


def test_window_never_cuts_inside_a_tool_loop() -> None:
    loop: list[ModelMessage] = [ModelRequest(parts=[UserPromptPart("go")])]
    for n in range(5):
        loop.append(ModelResponse(parts=[ToolCallPart("t", {}, tool_call_id=str(n))]))
        loop.append(ModelRequest(parts=[ToolReturnPart("t", "r", tool_call_id=str(n))]))
    assert hist.cut_index(loop, keep_last=3) is None  # the only prompt is the first message


def test_manual_window_compaction_keeps_a_valid_history(
    make_agent: MakeAgent, events: Events
) -> None:
    script = Script(
        steps=[
            call("lookup", key="a"),
            [TextPart("one")],
            call("lookup", key="b"),
            [TextPart("two")],
            call("lookup", key="c"),
            [TextPart("three")],
        ]
    )
    agent = make_agent(script, tools=[lookup], compaction_cfg=CompactionConfig(keep_last=3))
    for prompt in ("first", "second", "third"):
        agent.run_sync(prompt, str)
    assert len(agent.messages) == 12
    assert agent.compact()
    kept = agent.messages
    assert len(kept) == 4
    assert prompts(kept[0]) == ["third"]
    assert_valid_history(kept)
    reset = events.of(ContextResetEvent)[-1]
    assert reset.reason == "compact"
    assert dump(reset.to_messages()) == dump(kept)
    assert agent.run_sync("fourth", str) == "done"
    assert not agent.compact() or len(agent.messages) <= 6


def test_automatic_compaction_when_the_context_fills(make_agent: MakeAgent, events: Events) -> None:
    script = Script()
    agent = make_agent(
        script,
        model_cfg=ModelConfig(context_length=100),
        compaction_cfg=CompactionConfig(keep_last=2, trigger_ratio=0.5),
    )
    agent.run_sync("a" * 200, str)
    assert len(script.seen[0].messages) == 1
    agent.run_sync("b" * 200, str)
    assert len(script.seen[1].messages) == 1  # the first exchange was cut before sending
    assert [prompts(m) for m in agent.messages] == [["b" * 200], []]
    assert events.of(ContextResetEvent)[-1].reason == "compact"
    assert len(events.of(ModelMessageEvent)) == 4  # the record keeps every message

    restored = make_agent()
    restored.restore_context(events)
    assert dump(restored.messages) == dump(agent.messages)
    assert_valid_history(agent.messages)


def test_compaction_stays_off_without_a_context_length(make_agent: MakeAgent) -> None:
    script = Script()
    agent = make_agent(script, compaction_cfg=CompactionConfig(keep_last=1, trigger_ratio=0.01))
    assert not agent.context.auto_compaction
    agent.run_sync("x" * 500, str)
    agent.run_sync("y" * 500, str)
    assert len(script.seen[1].messages) == 3


def summarising_model() -> Script:
    def respond(messages: list[ModelMessage], info: AgentInfo) -> list[TextPart]:
        if info.instructions and info.instructions.startswith("Summarise"):
            return [TextPart("They talked about a and b.")]
        return [TextPart("done")]

    return Script(default=respond)


def test_summarize_strategy_replaces_the_dropped_part(
    make_agent: MakeAgent, events: Events
) -> None:
    agent = make_agent(
        summarising_model(), compaction_cfg=CompactionConfig(strategy="summarize", keep_last=2)
    )
    agent.run_sync("about a", str)
    agent.run_sync("about b", str)
    tokens_before = agent.lifetime_usage.total_tokens
    assert agent.compact()
    summary, *rest = agent.messages
    assert prompts(summary) == [f"{hist.SUMMARY_MARKER}\n\nThey talked about a and b."]
    assert [prompts(m) for m in rest] == [["about b"], []]
    usage = events.of(LlmUsageEvent)[-1]
    assert usage.run_id is None  # the summary's own request, charged to the agent
    assert agent.lifetime_usage.total_tokens == tokens_before + usage.total_tokens
    assert agent.run_sync("about c", str) == "done"
    assert_valid_history(agent.messages)


def test_a_failed_summary_falls_back_to_the_window(make_agent: MakeAgent) -> None:
    def respond(messages: list[ModelMessage], info: AgentInfo) -> list[TextPart]:
        if info.instructions and info.instructions.startswith("Summarise"):
            raise RuntimeError("summariser down")
        return [TextPart("done")]

    agent = make_agent(
        Script(default=respond), compaction_cfg=CompactionConfig(strategy="summarize", keep_last=2)
    )
    agent.run_sync("about a", str)
    agent.run_sync("about b", str)
    assert agent.compact()
    assert [prompts(m) for m in agent.messages] == [["about b"], []]


def test_automatic_summary_inside_a_run(make_agent: MakeAgent, events: Events) -> None:
    script = summarising_model()
    agent = make_agent(
        script,
        model_cfg=ModelConfig(context_length=60),
        compaction_cfg=CompactionConfig(strategy="summarize", keep_last=2, trigger_ratio=0.5),
    )
    agent.run_sync("a" * 100, str)
    agent.run_sync("b" * 100, str)
    assert prompts(agent.messages[0])[0].startswith(hist.SUMMARY_MARKER)
    second_run = events.of(ModelMessageEvent)[-1].run_id
    charged = [event for event in events.of(LlmUsageEvent) if event.run_id == second_run]
    assert len(charged) == 2  # the run's own request and the summary written inside it


# ---------------------------------------------------------------- repair


def test_repair_closes_dangling_calls_and_drops_orphans() -> None:
    broken: list[ModelMessage] = [
        ModelRequest(parts=[UserPromptPart("go")]),
        ModelResponse(
            parts=[
                ToolCallPart("t", {}, tool_call_id="done"),
                ToolCallPart("t", {}, tool_call_id="hung"),
            ]
        ),
        ModelRequest(
            parts=[
                ToolReturnPart("t", "ok", tool_call_id="done"),
                ToolReturnPart("t", "stray", tool_call_id="never-called"),
                UserPromptPart("notice"),
            ]
        ),
        ModelResponse(parts=[ToolCallPart("t", {}, tool_call_id="last")]),
        ModelRequest(parts=[]),
    ]
    repaired = hist.repair(broken)
    assert_valid_history(repaired)
    middle = repaired[2]
    assert isinstance(middle, ModelRequest)
    assert [getattr(p, "tool_call_id", None) for p in middle.parts[:2]] == ["done", "hung"]
    assert isinstance(middle.parts[2], UserPromptPart)  # results stay ahead of other content
    closing = repaired[-1]
    assert isinstance(closing, ModelRequest)
    (result,) = closing.parts
    assert isinstance(result, ToolReturnPart) and result.outcome == "interrupted"
    assert hist.repair(repaired) == repaired  # idempotent


def test_repair_leaves_a_valid_history_alone() -> None:
    valid: list[ModelMessage] = [
        ModelRequest(parts=[UserPromptPart("a")]),
        ModelResponse(parts=[ToolCallPart("t", {}, tool_call_id="1")]),
        ModelRequest(parts=[ToolReturnPart("t", "r", tool_call_id="1")]),
        ModelRequest(parts=[UserPromptPart("operator note")]),  # never merged
        ModelResponse(parts=[TextPart("ok")]),
    ]
    repaired = hist.repair(valid)
    assert repaired == valid
    assert all(a is b for a, b in zip(repaired, valid, strict=True))


# ---------------------------------------------------------------- restore


def test_restore_rebuilds_the_history(make_agent: MakeAgent, events: Events) -> None:
    script = Script(steps=[call("lookup", key="x"), [TextPart("one")]])
    agent = make_agent(script, tools=[lookup])
    agent.run_sync("first", str)
    agent.record_operator_action("operator note")
    agent.run_sync("second", str)

    restored = make_agent()
    restored.restore_context(events)
    assert dump(restored.messages) == dump(agent.messages)
    assert restored.lifetime_usage == agent.lifetime_usage
    assert restored.run_sync("third", str) == "done"


def test_restore_after_an_interrupted_run(make_agent: MakeAgent, events: Events) -> None:
    entered = threading.Event()

    async def wait_for_it() -> str:
        """Wait for something that never comes."""
        entered.set()
        await asyncio.Event().wait()
        return "never"

    script = Script(steps=[call("wait_for_it")])
    agent = make_agent(script, tools=[wait_for_it])
    interrupter = threading.Thread(target=lambda: entered.wait(10) and agent.interrupt())
    interrupter.start()
    with pytest.raises(RunInterruptedError):
        agent.run_sync("wait", str)
    interrupter.join()
    agent.record_operator_action("The human stopped the run.")
    agent.run_sync("carry on", str)

    restored = make_agent()
    restored.restore_context(events)
    assert dump(restored.messages) == dump(agent.messages)
    assert_valid_history(restored.messages)


# ---------------------------------------------------------------- unknown parts


@dataclass
class FuturePart:
    """A part kind this kernel has never heard of."""

    content: Any
    part_kind: str = "future-kind"


def test_history_helpers_pass_unknown_parts_through() -> None:
    strange = ModelResponse(parts=[FuturePart({"x": 1}), TextPart("hi")])  # type: ignore[list-item]
    messages: list[ModelMessage] = [
        ModelRequest(parts=[UserPromptPart("one")]),
        strange,
        ModelRequest(parts=[UserPromptPart("two")]),
        ModelResponse(parts=[TextPart("ok")]),
    ]
    assert hist.estimate_tokens(messages) > 0
    assert "Assistant: hi" in hist.render_transcript(messages)
    cut, kept = hist.window(messages, keep_last=2)
    assert cut == 2 and kept == messages[2:]
    assert hist.window(messages, keep_last=3)[1][0] is messages[2]
    data = message_to_data(strange)  # never raises, even when pydantic cannot serialize it
    assert isinstance(data, dict)


def test_the_size_estimate_remembers_each_message_and_agrees_with_the_plain_one() -> None:
    from retinue.llm.history import MessageSizes

    sizes = MessageSizes()
    messages: list[ModelMessage] = [
        ModelRequest(parts=[UserPromptPart(content="x" * (100 + n))]) for n in range(6)
    ]
    assert sizes.estimate(messages, "abc") == hist.estimate_tokens(messages, "abc")
    grown = [*messages, ModelResponse(parts=[TextPart(content="y" * 40)])]
    assert sizes.estimate(grown, "abc") == hist.estimate_tokens(grown, "abc")
    cut = grown[3:]  # a compaction: only what the history still holds is remembered
    assert sizes.estimate(cut, None) == hist.estimate_tokens(cut)
    assert len(sizes._known) == len(cut) - MessageSizes.FRESH
