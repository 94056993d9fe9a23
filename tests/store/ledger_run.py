"""A Worker whose turn calls four tools, killed while three of them run (the ledger's test).

`python ledger_run.py STORE` starts @Human and @Worker, recording to STORE, and has the
person ask the Worker. Its model calls in one response: `note` (effect unknown, returns at
once), and `look` (read-only), `put` (idempotent) and `launch` (effect unknown), which block
while `LEDGER_BLOCK` is set: the process is killed with them running. A subscriber prints
`TEAM <id>` and then `LEDGER <kind> <tool>` for each ledger record once it is committed.

Imported by the test (the resume runs in its process), the tools return at once, and the
Worker's model keeps the prompt of each request in `SEEN`.
"""

from __future__ import annotations

import os
import sys
import threading
from collections.abc import Callable, Sequence
from typing import Any, ClassVar

from pydantic_ai.messages import ModelMessage, ModelResponse, ToolCallPart
from pydantic_ai.models.function import AgentInfo
from retinue import (
    EventMessage,
    EventSubscriber,
    Message,
    ToolCard,
    tool_effect,
)
from retinue.testing import incoming, scripted_card, send, tool_returns, user_texts

BLOCK = "LEDGER_BLOCK"
STORE = "LEDGER_STORE"
SEEN: list[str] = []
"""The user-prompt texts of each request the Worker's model got, in this process."""


def _block() -> None:
    if os.environ.get(BLOCK):
        threading.Event().wait()  # running until the process is killed


class LedgerTool(ToolCard):
    """Four tools, one of each kind the ledger tells apart."""

    name: ClassVar[str] = "ledger_test"

    def get_tools(self) -> Sequence[Callable[..., Any]]:
        return [self.note, self.look, self.put, self.launch]

    def note(self, text: str) -> str:
        """Note something down."""
        return "noted"

    @tool_effect("read_only")
    def look(self, path: str) -> str:
        """Look at a file."""
        _block()
        return "seen"

    @tool_effect("idempotent")
    def put(self, path: str, text: str) -> str:
        """Write a file."""
        _block()
        return "put"

    def launch(self, target: str) -> str:
        """Launch something."""
        if os.environ.get(BLOCK):
            committed = _start_committed("launch")  # one write: other threads print too
            print(f"LEDGER launch ran, its start committed: {committed}\n", end="", flush=True)
        _block()
        return "launched"


def _start_committed(tool: str) -> bool:
    """Whether the store holds this tool's start, read from another connection."""
    from retinue.store import open_store

    with open_store(os.environ[STORE], create=False) as store:
        (team,) = store.list_teams()
        starts = store.read(team.team_id, kinds=["ToolCallStartedEvent"])
        return any(f'"tool_name":"{tool}"' in record.data for record in starts)


CALLS = [
    ("note", {"text": "start"}),
    ("look", {"path": "plan.md"}),
    ("put", {"path": "out.md", "text": "hello"}),
    ("launch", {"target": "rocket"}),
]


def worker(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    SEEN.append("\n".join(user_texts(messages[-1:])))
    if tool_returns(messages[-1:]):
        return send(info, ("@Human", "response", "all done"))
    got = incoming(messages)
    assert got.sender == "@Human", got
    return ModelResponse(
        parts=[
            ToolCallPart(tool_name=name, args=args, tool_call_id=f"call-{name}")
            for name, args in CALLS
        ]
    )


class PrintLedger(EventSubscriber):
    """Prints each ledger record once it is committed (subscribers hear only then)."""

    def on_message(self, message: Message) -> None:
        if isinstance(message, EventMessage):
            kind = type(message.event).__name__
            if kind.startswith("ToolCallStarted") or kind.startswith("ToolCallFinished"):
                tool = getattr(message.event, "tool_name", "")
                print(f"LEDGER {kind} {tool}\n", end="", flush=True)


def worker_card() -> Any:
    return scripted_card("Worker", "ledger_run:worker", tools=[LedgerTool()])


if __name__ == "__main__":
    import ledger_run  # the card's class is recorded by its module's name, not __main__'s
    from resume_helpers import run_until_killed

    run_until_killed(
        sys.argv[1], ledger_run.PrintLedger(), ledger_run.worker_card(), "Do the four things."
    )
