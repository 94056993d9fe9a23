"""A Writer whose workspace writes wait for approval, and what the person was told: shared by
the approval tests of a live team, of a resumed one and of a fork (named by model strings,
`approval_writers:writer`, so that a resumed team runs the same script)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from pydantic_ai.messages import ModelMessage, ModelResponse, ToolCallPart
from pydantic_ai.models.function import AgentInfo
from retinue import AgentCard, AgentConfig, AgentMessage, SentMessage
from retinue.agent.approval_policy import check_rules
from retinue.record import decode
from retinue.store import open_store
from retinue.testing import call_tool, run_messages, scripted_card, send, tool_returns


def writer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Writes out.txt, then tells the person what the write answered."""
    returns = tool_returns(run_messages(messages))
    if returns:
        return send(info, ("@Human", "response", f"wrote: {returns[-1].content}"))
    return call_tool("workspace_write", {"path": "out.txt", "content": "hello"})


def two_writes(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Two writes in one step (two calls parked at once), then their results to the person."""
    returns = tool_returns(run_messages(messages))
    if returns:
        return send(info, ("@Human", "response", " / ".join(str(r.content) for r in returns)))
    return ModelResponse(
        parts=[
            ToolCallPart("workspace_write", {"path": "a.txt", "content": "A"}),
            ToolCallPart("workspace_write", {"path": "b.txt", "content": "B"}),
        ]
    )


def writer_card(root: Path, rules: list[Any], script: str = "writer") -> AgentCard:
    """@Writer on `script` (a function of this module), its workspace in `root`, its calls
    waiting under `rules` (texts or rule tables)."""
    from retinue_workspace import WorkspaceTool

    card = scripted_card(
        "Writer", f"approval_writers:{script}", tools=[WorkspaceTool(root=root, per_team=False)]
    )
    assert isinstance(card.config, AgentConfig)
    card.config.approve = check_rules(rules)
    return card


def recorded(where: str, team_id: str) -> list[object]:
    """Team `team_id`'s own stream in the store at `where`, decoded, oldest first."""
    with open_store(where, create=False) as store:
        return [decode(record.data) for record in store.read(team_id)]


def to_human(records: list[object]) -> list[str]:
    """What the person was told in `records`, in order."""
    return [
        m.message.content
        for m in records
        if isinstance(m, SentMessage)
        and isinstance(m.message, AgentMessage)
        and m.message.recipient is not None
        and m.message.recipient.name == "@Human"
    ]
