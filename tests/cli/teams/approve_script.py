"""The scripted model of approve.toml: "NAME.txt: words" writes the words to NAME.txt, any
other request to notes.txt; once the tool has answered (written, or refused and why), that
result is the answer to the person."""

from __future__ import annotations

from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models.function import AgentInfo
from retinue.testing import call_tool, incoming, run_messages, send, tool_returns


def writer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    got = incoming(messages)
    returns = [r for r in tool_returns(run_messages(messages)) if r.tool_name != "final_result"]
    if returns:
        return send(info, (got.sender, "response", f"Done: {returns[-1].content}"))
    path, _, words = got.content.partition(": ")
    if not path.endswith(".txt") or not words:
        path, words = "notes.txt", got.content
    return call_tool("workspace_write", {"path": path, "content": words})
