"""Approvals over MCP: a served team's call that waits for the person is asked of the client,
by elicitation when it can, else in the `ask`'s result (`retinue mcp serve` over stdio,
driven by the SDK's own client)."""

from __future__ import annotations

import asyncio
import os
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from mcp import types
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp_helpers import TIMEOUT

pytest.importorskip("retinue_workspace", reason="the served Writer writes with the workspace card")

TEAM = Path(__file__).parent / "teams" / "approve.toml"

Scenario = Callable[[ClientSession], Awaitable[None]]


def text_of(result: types.CallToolResult) -> str:
    return "".join(part.text for part in result.content if isinstance(part, types.TextContent))


async def _serve(cwd: Path, scenario: Scenario, elicitation: Any = None) -> None:
    """`retinue mcp serve` of the approve team in `cwd`; `scenario` drives it as the client."""
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "retinue", "mcp", "serve", str(TEAM)],
        env=dict(os.environ),  # this tree's PYTHONPATH, not the SDK's bare environment
        cwd=cwd,
    )
    async with (
        stdio_client(params) as (read, write),
        ClientSession(read, write, elicitation_callback=elicitation) as session,
    ):
        await session.initialize()
        await scenario(session)


def run(cwd: Path, scenario: Scenario, elicitation: Any = None) -> None:
    asyncio.run(asyncio.wait_for(_serve(cwd, scenario, elicitation), 4 * TIMEOUT))


def written(cwd: Path) -> list[str]:
    """What the team wrote to notes.txt (in its own directory of the workspace)."""
    return [path.read_text() for path in cwd.glob("workspace/*/notes.txt")]


def test_each_waiting_call_is_one_elicitation_and_its_answer_is_the_persons(
    tmp_path: Path,
) -> None:
    asked: list[tuple[str, dict[str, Any]]] = []
    answers = [
        types.ElicitResult(action="accept", content={"approve": True, "note": "fine"}),
        types.ElicitResult(action="accept", content={"approve": False, "note": "not today"}),
        types.ElicitResult(action="decline"),
        types.ElicitResult(action="accept", content={"answer": "blue"}),
        types.ErrorData(code=types.INVALID_REQUEST, message="no forms today"),
    ]

    async def elicitation(
        context: Any, params: types.ElicitRequestParams
    ) -> types.ElicitResult | types.ErrorData:
        assert isinstance(params, types.ElicitRequestFormParams)
        asked.append((params.message, params.requested_schema))
        return answers[len(asked) - 1]

    seen: list[tuple[bool, str]] = []
    files: list[list[str]] = []

    async def scenario(session: ClientSession) -> None:
        for request in ("hello", "goodbye", "farewell", "pick a colour", "later"):
            result = await session.call_tool("ask", {"request": request})
            seen.append((result.is_error, text_of(result)))
            files.append(written(tmp_path))

    run(tmp_path, scenario, elicitation)

    assert len(asked) == 5, seen  # one elicitation per waiting call
    message, schema = asked[0]
    assert message == (
        "@Writer waits for your approval:\n"
        '[1] workspace_write({"path": "notes.txt", "content": "hello"}) '
        "under rule 'workspace.write*', for @Client"
    )
    assert schema["required"] == ["approve"]
    assert set(schema["properties"]) == {"approve", "note"}
    assert seen[0] == (  # the model read the note given with the approval
        False,
        "@Writer (response): Done: Created notes.txt (5 bytes, 1 line).\n\n"
        "Approved with a note: fine",
    )
    assert files[0] == ["hello"]
    # No: the call does not run, and the model reads the reason as the tool's result.
    assert seen[1] == (
        False,
        "@Writer (response): Done: The person denied this tool call: not today",
    )
    assert seen[2] == (
        False,
        "@Writer (response): Done: The person denied this tool call: declined over MCP",
    )
    assert files[1] == files[2] == ["hello"]
    message, schema = asked[3]
    assert message == "@Writer asks you:\n[4] asks: Which colour? (one of: red, blue), for @Client"
    assert schema["properties"]["answer"]["enum"] == ["red", "blue"]
    assert seen[3] == (False, "@Writer (response): Done: blue")
    # An elicitation the client fails: the call is told plainly, and still waits.
    assert seen[4][1].startswith("@Writer waits for you; nothing runs until you answer:\n  [5] ")
    assert files[4] == ["hello"]


def test_a_client_without_elicitation_is_told_what_waits_and_answers_with_ask(
    tmp_path: Path,
) -> None:
    seen: dict[str, str] = {}

    async def scenario(session: ClientSession) -> None:
        result = await session.call_tool("ask", {"request": "hello"})
        seen["notice"] = text_of(result)
        seen["before"] = repr(written(tmp_path))
        approved = await session.call_tool("ask", {"request": "@Writer /approve 1"})
        seen["approved"] = text_of(approved)
        deadline = asyncio.get_running_loop().time() + TIMEOUT
        while "Done:" not in (team := text_of(await session.call_tool("team", {}))):
            assert asyncio.get_running_loop().time() < deadline, team
        seen["team"] = team
        again = await session.call_tool("ask", {"request": "@Writer /approve 1"})
        seen["again"] = text_of(again)
        nobody = await session.call_tool("ask", {"request": "@Nobody /approve 1"})
        seen["nobody"] = text_of(nobody)

    run(tmp_path, scenario)

    assert seen["notice"] == (
        "@Writer waits for you; nothing runs until you answer:\n"
        '  [1] workspace_write({"path": "notes.txt", "content": "hello"}) '
        "under rule 'workspace.write*', for @Client\n"
        'Answer with ask("@Writer /approve 1") or ask("@Writer /deny 1 REASON"); '
        "the team's answer then comes to you in team()."
    )
    assert seen["before"] == "[]"
    assert seen["approved"] == (
        "@Writer (notification): Approved workspace_write (call 1). The run goes on."
    )
    assert "- @Writer (response): Done: Created notes.txt (5 bytes, 1 line)." in seen["team"]
    assert written(tmp_path) == ["hello"]
    assert seen["again"] == (
        "@Writer (notification): /approve 1: refused, that call is no longer pending "
        "(already approved)."
    )
    assert "no member is called '@Nobody'; the team: @Writer" in seen["nobody"]
