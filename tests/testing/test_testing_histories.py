"""Reading an agent's model requests and tool results back from its published events."""

from __future__ import annotations

from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from retinue import ContextResetEvent, ModelMessageEvent, ToolCallEvent
from retinue.llm.events import message_to_data
from retinue.testing.histories import model_requests, tool_results
from retinue.testing.scripted import user_texts


def kept(agent: str, message: ModelMessage) -> ModelMessageEvent:
    return ModelMessageEvent(agent_name=agent, message=message_to_data(message))


def ask(text: str) -> ModelRequest:
    return ModelRequest(parts=[UserPromptPart(content=text)])


def answer(text: str) -> ModelResponse:
    return ModelResponse(parts=[TextPart(text)])


def test_each_response_lists_the_history_before_it_and_resets_replace_it() -> None:
    summary = ask("**Summary of the earlier conversation**\n\nThey talked.")
    events: list[object] = [
        kept("@Ada", ask("one")),
        kept("@Bob", ask("not Ada's")),
        kept("@Ada", answer("1")),
        ContextResetEvent(agent_name="@Ada", reason="compact", messages=[message_to_data(summary)]),
        kept("@Ada", ask("two")),
        kept("@Ada", answer("2")),
        "not an event at all",
    ]

    requests = model_requests(events, "@Ada")

    assert [user_texts(r) for r in requests] == [["one"], [user_texts([summary])[0], "two"]]
    assert [user_texts(r) for r in model_requests(events, "@Bob")] == []


def test_tool_results_are_those_of_reported_function_calls() -> None:
    events: list[object] = [
        kept("@Ada", ModelResponse(parts=[ToolCallPart("ping", {}, tool_call_id="c1")])),
        ToolCallEvent(agent_name="@Ada", tool_name="ping", tool_call_id="c1"),
        kept("@Ada", ModelRequest(parts=[ToolReturnPart("ping", "pong", tool_call_id="c1")])),
        kept("@Ada", ModelResponse(parts=[ToolCallPart("final_result", {}, tool_call_id="c2")])),
        kept(
            "@Ada", ModelRequest(parts=[ToolReturnPart("final_result", "done", tool_call_id="c2")])
        ),
        ToolCallEvent(agent_name="@Bob", tool_name="ping", tool_call_id="c3"),
        kept("@Bob", ModelRequest(parts=[ToolReturnPart("ping", "Bob's", tool_call_id="c3")])),
    ]

    assert tool_results(events, "@Ada") == ["pong"]
    assert tool_results(events, "@Bob") == ["Bob's"]
