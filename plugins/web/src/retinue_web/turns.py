"""One turn opened from the record: its runs, their model messages, tool calls and tokens.

A turn is what one member did with one message: the runs it made, each with the messages
it exchanged with its model (pydantic-ai's JSON form, shown part by part), the tools it
called, and what each request cost. Everything a turn's runs report names that message as
its parent, and the fold knows where in the record those runs start and end, so opening a
turn reads that stretch of the record only.
"""

from __future__ import annotations

import json
from typing import Any

from retinue import (
    EventMessage,
    LlmUsageEvent,
    ModelMessageEvent,
    RunFinishedEvent,
    RunStartedEvent,
    ToolCallEvent,
)
from retinue.record import Store, decode

from retinue_web.delta import TEXT_LIMIT

TURN_KINDS = (
    "RunStartedEvent",
    "RunFinishedEvent",
    "ModelMessageEvent",
    "ToolCallEvent",
    "LlmUsageEvent",
)


def _text(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= TEXT_LIMIT else text[:TEXT_LIMIT] + "…"


def part_text(content: Any) -> str:
    """A part's content as text: a list of items (text blocks, media) one after another."""
    if not isinstance(content, list):
        return _text(content)
    pieces = []
    for item in content:
        if isinstance(item, dict) and isinstance(item.get("content"), str):
            pieces.append(item["content"])  # a text block (a context update, say)
        elif isinstance(item, dict):
            pieces.append(f"[{item.get('kind', 'media')}]")
        else:
            pieces.append(str(item))
    return _text("\n".join(pieces))


def _part(part: dict[str, Any]) -> dict[str, Any]:
    kind = str(part.get("part_kind", "?"))
    shown: dict[str, Any] = {"kind": kind}
    if "tool_name" in part:
        shown["tool"] = str(part["tool_name"])
    if "args" in part:
        shown["text"] = _text(part["args"])
    elif "content" in part:
        shown["text"] = part_text(part["content"])
    return shown


def _model_message(data: Any) -> dict[str, Any]:
    if not isinstance(data, dict):
        return {"kind": "?", "parts": [{"kind": "?", "text": _text(data)}]}
    parts = data.get("parts")
    return {
        "kind": str(data.get("kind", "?")),
        "parts": [_part(p) for p in parts if isinstance(p, dict)]
        if isinstance(parts, list)
        else [],
    }


def read_turn(store: Store, team_id: str, message_id: str, span: tuple[int, int]) -> dict[str, Any]:
    """The turn that handled `message_id`, read from the record between `span`'s positions."""
    first, last = span
    runs: dict[str, dict[str, Any]] = {}
    agent = None
    for record in store.read(team_id, after=first - 1, kinds=TURN_KINDS):
        if record.position > last:
            break
        if record.parent_id != message_id:
            continue
        message = decode(record.data)
        if not isinstance(message, EventMessage):
            continue
        event = message.event
        run_id = getattr(event, "run_id", None) or "-"
        agent = getattr(event, "agent_name", agent)
        run = runs.setdefault(
            run_id,
            {
                "run": run_id,
                "status": "running",
                "error": None,
                "messages": [],
                "tools": [],
                "usage": {"requests": 0, "input_tokens": 0, "output_tokens": 0, "cost_usd": None},
            },
        )
        if isinstance(event, RunStartedEvent):
            run["kind"] = event.kind
        elif isinstance(event, RunFinishedEvent):
            run["status"], run["error"] = event.status, event.error
        elif isinstance(event, ModelMessageEvent):
            run["messages"].append(_model_message(event.message))
        elif isinstance(event, ToolCallEvent):
            run["tools"].append({"tool": event.tool_name, "args": _text(event.args or {})})
        elif isinstance(event, LlmUsageEvent):
            usage = run["usage"]
            usage["requests"] += event.requests
            usage["input_tokens"] += event.input_tokens
            usage["output_tokens"] += event.output_tokens
            if event.cost_usd is not None:
                usage["cost_usd"] = (usage["cost_usd"] or 0.0) + event.cost_usd
    return {"message": message_id, "agent": agent, "runs": list(runs.values())}
