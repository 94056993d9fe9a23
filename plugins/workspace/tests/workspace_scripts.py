"""Helpers for the workspace tests: real image files, and a model that reports what it saw.

`ModelConfig(provider="function", model="workspace_scripts:looker")` runs `looker`: a
pydantic-ai `FunctionModel` that answers @Human with a JSON account of the prompt it was
given (its text, and for each `BinaryContent` its identifier, media type, size and hash),
so a test checks what the model itself received.
"""

from __future__ import annotations

import hashlib
import json
import struct
import zlib
from pathlib import Path
from typing import Any

from pydantic_ai.messages import (
    BinaryContent,
    ModelMessage,
    ModelRequest,
    ModelResponse,
    UserPromptPart,
)
from pydantic_ai.models.function import AgentInfo
from retinue import AgentCard
from retinue.testing import FOLLOW, TeamHarness, incoming, scripted_card, send
from retinue_workspace import WorkspaceTool

LOOKER = "workspace_scripts:looker"
ANSWER_SENDER = "workspace_scripts:answer_sender"


def png(red: int = 255, green: int = 0, blue: int = 0, size: int = 2) -> bytes:
    """A valid PNG of `size`x`size` pixels of one colour (so different colours differ)."""
    row = b"\x00" + bytes((red, green, blue)) * size
    header = struct.pack(">IIBBBBB", size, size, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + _chunk(b"IHDR", header)
        + _chunk(b"IDAT", zlib.compress(row * size))
        + _chunk(b"IEND", b"")
    )


def _chunk(kind: bytes, data: bytes) -> bytes:
    crc = zlib.crc32(kind + data) & 0xFFFFFFFF
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc)


JPEG = b"\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01" + b"\x00" * 32
GIF = b"GIF89a\x01\x00\x01\x00\x00\x00\x00;"
WEBP = b"RIFF\x1a\x00\x00\x00WEBPVP8L" + b"\x00" * 16


def digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def looker(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Tell @Human what the prompt of this request held (text and images)."""
    request = next(m for m in reversed(messages) if isinstance(m, ModelRequest))
    texts: list[str] = []
    images: list[dict[str, Any]] = []
    for part in request.parts:
        if not isinstance(part, UserPromptPart):
            continue
        content = [part.content] if isinstance(part.content, str) else list(part.content)
        for item in content:
            if isinstance(item, str):
                texts.append(item)
            elif isinstance(item, BinaryContent):
                images.append(
                    {
                        "identifier": item.identifier,
                        "media_type": item.media_type,
                        "size": len(item.data),
                        "sha256": digest(item.data),
                    }
                )
    report = json.dumps({"text": "".join(texts), "images": images, "parts": _kinds(request)})
    return send(info, ("@Human", "response", report))


def answer_sender(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Answer whoever `retinue.testing.incoming` says sent the message this run handles."""
    sender = incoming(messages).sender
    return send(info, (sender or "@Human", "response", f"answered {sender or 'nobody'}"))


def _kinds(request: ModelRequest) -> list[str]:
    """The kinds of prompt content in order: `text` or `image`, neighbours not merged."""
    kinds: list[str] = []
    for part in request.parts:
        if isinstance(part, UserPromptPart) and not isinstance(part.content, str):
            kinds.extend("image" if isinstance(c, BinaryContent) else "text" for c in part.content)
    return kinds


def workspace_card(
    role: str, root: Path, *, script: str = FOLLOW, per_team: bool = False, **settings: Any
) -> AgentCard:
    """A role whose agent carries a workspace at `root` (shared by the team unless per_team)."""
    return scripted_card(
        role, script, tools=[WorkspaceTool(root=root, per_team=per_team, **settings)]
    )


TOOL_LISTER = "workspace_scripts:tool_lister"


def tool_lister(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Tell @Human the names of the tools this request offers, sorted."""
    names = " ".join(sorted(tool.name for tool in info.function_tools))
    return send(info, ("@Human", "response", names))


def offered_tools(team: TeamHarness, root: Path, role: str, **settings: Any) -> list[str]:
    """The tools a new member of `role` is offered with a workspace at `root` and `settings`,
    sorted (it plays `tool_lister`)."""
    lister = team.add(workspace_card(role, root, script=TOOL_LISTER, **settings))
    team.say(lister, "which tools?")
    team.wait_idle(20)
    return team.received_by("@Human")[-1].content.split()
