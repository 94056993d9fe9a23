"""Scripted models for product_team.toml: each plays its role as a real model would.

They read the message they answer (`incoming`) and what their tools returned this run
(`tool_returns` over `run_messages`), and answer with tool calls or outbound messages, so
the team runs offline, the same way every time, through the real planning and workspace
cards.
"""

from __future__ import annotations

import re

from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models.function import AgentInfo
from retinue.testing import call_tool, incoming, received, run_messages, send, tool_returns

FILE = "rename_photos.py"
CODE = '''"""Rename photos to the date they were taken: 2024-05-01_001.jpg."""

import sys
from datetime import datetime
from pathlib import Path


def new_name(photo: Path, index: int) -> str:
    taken = datetime.fromtimestamp(photo.stat().st_mtime)
    return f"{taken:%Y-%m-%d}_{index:03d}{photo.suffix.lower()}"


def main(folder: str) -> None:
    photos = sorted(Path(folder).glob("*.jpg"))
    for index, photo in enumerate(photos, start=1):
        photo.rename(photo.with_name(new_name(photo, index)))


if __name__ == "__main__":
    main(sys.argv[1])
'''


def _results(messages: list[ModelMessage], info: AgentInfo) -> list[str]:
    """What this run's function tools returned so far (not the output tool's receipts)."""
    outputs = {tool.name for tool in info.output_tools}
    run = run_messages(messages, info)
    return [str(part.content) for part in tool_returns(run) if part.tool_name not in outputs]


def _person(messages: list[ModelMessage]) -> str:
    """Who asked the manager first: the person, whatever the team file names them."""
    return incoming(messages[:1]).sender or "@Human"


def _tasks(messages: list[ModelMessage]) -> list[str]:
    """The ids of the tasks the manager created last (`Created T3: ...; T4: ...`)."""
    created = [
        str(part.content)
        for part in tool_returns(messages)
        if part.tool_name == "planning_create_tasks"
    ]
    return re.findall(r"\bT\d+\b", created[-1]) if created else ["T1", "T2"]


def _member(messages: list[ModelMessage], role: str) -> str:
    """The member of `role` that answered before (asked again), else the role (hired)."""
    for got in received(messages):
        if got.sender.removeprefix("@").rstrip("0123456789") == role:
            return got.sender
    return role


def manager(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Plan on the board, hand the work to a Developer, then to QA, then report; a later
    request goes to the same members."""
    got = incoming(messages)
    step = len(_results(messages, info))
    role = got.sender.removeprefix("@").rstrip("0123456789")
    if role == "Developer":
        review = _tasks(messages)[-1]
        return send(
            info,
            (
                _member(messages, "QA"),
                "request",
                f"Please review {FILE} in the workspace (task {review}).",
            ),
        )
    if role == "QA":
        if step < 2:
            task = _tasks(messages)[step]
            return call_tool("planning_update_task", {"task_id": task, "status": "done"})
        return send(
            info,
            (
                _person(messages),
                "response",
                f"Done: the Developer wrote {FILE} in the workspace and QA reviewed it. "
                f"QA's findings: {got.content}",
            ),
        )
    if step == 0:
        tasks = [
            {"title": f"Write {FILE}", "description": got.content},
            {"title": f"Review {FILE}", "depends_on": ["#1"]},
        ]
        return call_tool("planning_create_tasks", {"tasks": tasks})
    write = _tasks(messages)[0]
    developer = _member(messages, "Developer")
    request = f"Task {write}: write {FILE} in the workspace for: {got.content}"
    return send(info, (developer, "request", request))


def developer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Write the file, note it on the board's task named in the request, answer."""
    got = incoming(messages)
    step = len(_results(messages, info))
    if step == 0:
        return call_tool("workspace_write", {"path": FILE, "content": CODE})
    if step == 1:
        task = re.match(r"Task (T\d+)", got.content)
        text = f"{FILE} is written"
        return call_tool(
            "planning_comment", {"task_id": task.group(1) if task else "T1", "text": text}
        )
    return send(
        info,
        (got.sender, "response", f"I wrote {FILE}: run it as `python {FILE} FOLDER`."),
    )


def qa(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    """Read the file, answer with what a reviewer would flag."""
    got = incoming(messages)
    results = _results(messages, info)
    if not results:
        return call_tool("workspace_read", {"path": FILE})
    shown = results[-1]
    lines = len([line for line in shown.splitlines() if line.strip()])
    return send(
        info,
        (
            got.sender,
            "response",
            f"Reviewed {FILE} ({lines} lines): it uses the file's modification time, not the "
            "date the photo was taken; two runs in a row rename twice; only .jpg is handled.",
        ),
    )
