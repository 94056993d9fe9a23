"""A Writer whose writes wait for the person's yes (`workspace.write*`) and who may ask the
person a question (`ask_person`): the web view's approval cards are tested on it.

Its model, by the request it handles: `write PATH: TEXT` writes TEXT to PATH through the
workspace card; `ask` asks "Which colour?" (red or blue); anything else is answered at once.
Once the tool's result is in, it tells the person what the tool said.
"""

from __future__ import annotations

from pathlib import Path

from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models.function import AgentInfo
from retinue import AgentCard, AgentConfig
from retinue.testing import call_tool, incoming, run_messages, scripted_card, send, tool_returns
from retinue_workspace import WorkspaceTool

#: The tools whose results it reports (a run also begins with the last one's output result).
TOOLS = ("workspace_write", "ask_person")
QUESTION = {"question": "Which colour?", "choices": ["red", "blue"]}


def writer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    asked = incoming(messages).content
    returns = [r for r in tool_returns(run_messages(messages)) if r.tool_name in TOOLS]
    if returns:
        return send(info, ("@Human", "response", f"tool said: {returns[-1].content}"))
    if asked.startswith("write "):
        path, _, text = asked.removeprefix("write ").partition(": ")
        return call_tool("workspace_write", {"path": path, "content": text})
    if asked == "ask":
        return call_tool("ask_person", QUESTION)
    return send(info, ("@Human", "response", f"answered: {asked}"))


def writer_card(root: Path) -> AgentCard:
    """The Writer's card: its model is `writer` by name, so a resumed team plays it too."""
    card = scripted_card(
        "Writer", "approval_team:writer", tools=[WorkspaceTool(root=root, per_team=False)]
    )
    config = card.config
    assert isinstance(config, AgentConfig)
    config.approve.append("workspace.write*")
    config.ask_person = True
    return card
