"""What a model saw and said, read back from a record (`retinue log --turns`).

Each model request and response an agent exchanged is one `ModelMessageEvent` record, its
message in pydantic-ai's JSON form. It is read here as plain data, not rebuilt into
pydantic-ai's classes: a part of a kind this version does not know is still shown, by its
kind and its fields. Texts come back raw; the caller escapes them for the terminal.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from retinue.store import Record

KIND = "ModelMessageEvent"
_QUIET_FIELDS = frozenset({"part_kind", "timestamp", "id", "provider_name", "provider_details"})


@dataclass(frozen=True)
class ModelTurn:
    """One model message: `model request` or `model response (...)`, and its parts."""

    heading: str
    parts: list[tuple[str, str]] = field(default_factory=list)
    """(label, text) in order: `instructions`, `user prompt`, `tool call NAME`, `text`, ..."""


def model_message(record: Record) -> dict[str, Any] | None:
    """The pydantic-ai JSON of a `ModelMessageEvent` record's message; None for any other."""
    if record.kind != KIND:
        return None
    try:
        message = json.loads(record.data)["event"]["message"]
    except (ValueError, KeyError, TypeError):
        return None
    return message if isinstance(message, dict) else None


class TurnReader:
    """Reads model messages in record order; an agent's instructions are shown when they
    change, not again with every request of a run."""

    def __init__(self) -> None:
        self._instructions: dict[str, str] = {}

    def read(self, agent: str, message: dict[str, Any]) -> ModelTurn:
        parts: list[tuple[str, str]] = []
        if message.get("kind") == "response":
            heading = "model response" + _about_response(message)
        else:
            heading = "model request"
            instructions = message.get("instructions")
            if isinstance(instructions, str) and instructions:
                if self._instructions.get(agent) != instructions:
                    parts.append(("instructions", instructions))
                else:
                    parts.append(("instructions", "(as in its previous request)"))
                self._instructions[agent] = instructions
        for part in message.get("parts") or []:
            if isinstance(part, dict):
                parts.append((_label(part), _text(part)))
        return ModelTurn(heading, parts)


def _about_response(message: dict[str, Any]) -> str:
    about = [str(message["model_name"])] if message.get("model_name") else []
    usage = message.get("usage")
    if isinstance(usage, dict) and (usage.get("input_tokens") or usage.get("output_tokens")):
        about.append(f"{usage.get('input_tokens', 0)} in / {usage.get('output_tokens', 0)} out")
    return f" ({', '.join(about)})" if about else ""


def _label(part: dict[str, Any]) -> str:
    label = str(part.get("part_kind", "part")).replace("-", " ")
    tool = part.get("tool_name")
    return f"{label} {tool}" if tool else label


def _text(part: dict[str, Any]) -> str:
    if "content" in part:
        return _content(part["content"])
    if "args" in part:
        return _content(part["args"])
    rest = {key: value for key, value in part.items() if key not in _QUIET_FIELDS}
    return json.dumps(rest, ensure_ascii=False)


def _content(content: Any) -> str:
    """A part's content as text: strings as they are, a prompt's items one after another."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(_item(item) for item in content)
    return json.dumps(content, ensure_ascii=False)


def _item(item: Any) -> str:
    if isinstance(item, str):
        return item
    if isinstance(item, dict):
        if isinstance(item.get("content"), str):
            return str(item["content"])
        if "url" in item:
            return f"[{item.get('kind', 'file')}: {item['url']}]"
    return json.dumps(item, ensure_ascii=False)
