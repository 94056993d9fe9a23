"""A Writer whose write waits for the person's yes, killed while it waits (the approvals'
crash test).

`python approve_run.py STORE ROOT` starts @Human and @Writer, recording to STORE, and has the
person ask the Writer to write. Its model calls `workspace_write` (workspace in ROOT) under
the rule `workspace.write*`: the run parks, and the person's next message is held. A
subscriber prints `TEAM <id>`, then `PARKED` and `HELD` once each is committed to the record.

Imported by the test (the resume runs in its process), the Writer's model counts the
results it was shown in `RESULTS`.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models.function import AgentInfo
from retinue import (
    AgentConfig,
    EventMessage,
    EventSubscriber,
    Message,
)
from retinue.agent.events import ToolApprovalAskedEvent, ToolApprovalHeldEvent
from retinue.testing import call_tool, incoming, run_messages, scripted_card, send, tool_returns
from retinue_workspace import WorkspaceTool

RESULTS: list[str] = []
"""What the Writer's tool returned, as its model read it, in this process."""


def writer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    asked, returns = incoming(messages), tool_returns(run_messages(messages))
    if asked.content == "write it" and not returns:
        return call_tool("workspace_write", {"path": "out.txt", "content": "hello"})
    reply = f"answered: {asked.content}"
    if asked.content == "write it":
        RESULTS.append(str(returns[-1].content))
        reply = f"wrote: {returns[-1].content}"
    return send(info, ("@Human", "response", reply))


class PrintParked(EventSubscriber):
    """Prints `PARKED` once the pending call is committed (subscribers hear only then), and
    `HELD` once the message that came next is held."""

    def on_message(self, message: Message) -> None:
        if isinstance(message, EventMessage) and isinstance(message.event, ToolApprovalAskedEvent):
            print("PARKED", flush=True)
        if isinstance(message, EventMessage) and isinstance(message.event, ToolApprovalHeldEvent):
            print("HELD", flush=True)


def writer_card(root: Path) -> Any:
    card = scripted_card(
        "Writer", "approve_run:writer", tools=[WorkspaceTool(root=root, per_team=False)]
    )
    config = card.config
    assert isinstance(config, AgentConfig)
    config.approve.append("workspace.write*")
    return card


if __name__ == "__main__":
    import approve_run  # the card's class is recorded by its module's name, not __main__'s
    from resume_helpers import run_until_killed

    card = approve_run.writer_card(Path(sys.argv[2]))
    run_until_killed(sys.argv[1], approve_run.PrintParked(), card, "write it", "and then?")
