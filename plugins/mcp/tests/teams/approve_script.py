"""The scripted model of approve.toml: a request naming a colour is a question to the person;
any other is written to notes.txt; the tool's result (written, refused, answered) is the
answer."""

from __future__ import annotations

from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models.function import AgentInfo
from retinue.testing import call_tool, incoming, run_messages, send, tool_returns


def writer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    returns = [r for r in tool_returns(run_messages(messages)) if r.tool_name != "final_result"]
    if returns:
        return send(info, ("@Client", "response", f"Done: {returns[-1].content}"))
    request = incoming(messages).content
    if "colour" in request:
        return call_tool("ask_person", {"question": "Which colour?", "choices": ["red", "blue"]})
    return call_tool("workspace_write", {"path": "notes.txt", "content": request})
