"""A team served over MCP, driven by the SDK's own client over stdio (`retinue mcp serve`)."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path

from mcp import types
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client

TEAM = Path(__file__).parent / "teams" / "relay.toml"
TIMEOUT = 120


def text_of(result: types.CallToolResult) -> str:
    return "".join(part.text for part in result.content if isinstance(part, types.TextContent))


async def _drive(*commands: str) -> dict[str, object]:
    """Start `retinue mcp serve` as a subprocess and drive it through the SDK's client."""
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "retinue", "mcp", "serve", *commands]
    )
    seen: dict[str, object] = {}
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        seen["tools"] = sorted(tool.name for tool in (await session.list_tools()).tools)

        progress: list[str] = []

        async def on_progress(step: float, total: float | None, message: str | None) -> None:
            progress.append(message or "")

        answer = await session.call_tool(
            "ask", {"request": "what is six times seven"}, progress_callback=on_progress
        )
        seen["answer"] = (answer.is_error, text_of(answer))
        seen["progress"] = list(progress)
        seen["team"] = text_of(await session.call_tool("team", {}))

        empty = await session.call_tool("ask", {"request": "  "})
        seen["empty"] = (empty.is_error, text_of(empty))
        unknown = await session.call_tool("stop", {"member": "Nobody"})
        seen["unknown"] = (unknown.is_error, text_of(unknown))

        working = asyncio.Event()

        async def on_wait_progress(step: float, total: float | None, message: str | None) -> None:
            if message and message.startswith("@Lead -> @Helper"):
                working.set()

        waiting = asyncio.create_task(
            session.call_tool(
                "ask", {"request": "wait until stopped"}, progress_callback=on_wait_progress
            )
        )
        await asyncio.wait_for(working.wait(), TIMEOUT)
        stopped = await session.call_tool("stop", {})
        seen["stopped"] = (stopped.is_error, text_of(stopped))
        ended = await asyncio.wait_for(waiting, TIMEOUT)
        seen["ended"] = (ended.is_error, text_of(ended))
    return seen


def test_an_mcp_client_gets_the_teams_answer_with_progress_and_can_stop_it() -> None:
    seen = asyncio.run(asyncio.wait_for(_drive(str(TEAM)), 4 * TIMEOUT))

    assert seen["tools"] == ["ask", "stop", "team"]
    assert seen["answer"] == (
        False,
        "@Lead (response): The team's answer: WHAT IS SIX TIMES SEVEN = 42",
    )
    progress = seen["progress"]
    assert isinstance(progress, list)
    assert "@Lead -> @Helper (request): what is six times seven" in progress
    assert "@Helper -> @Lead (response): WHAT IS SIX TIMES SEVEN = 42" in progress
    team = str(seen["team"])
    assert team.startswith("Team 'relay'; requests go to @Lead.")
    assert "- @Lead, Lead, idle: 2 runs, 2 model requests" in team
    assert "- @Helper, Helper, idle: 1 runs, 1 model requests" in team
    assert "- @Client (the person: you)" in team
    assert seen["empty"] == (True, "Error executing tool ask: the request is empty")
    assert seen["unknown"][0] is True  # type: ignore[index]
    assert "no member is called 'Nobody'; the team: @Lead, @Helper" in str(seen["unknown"])
    assert seen["stopped"] == (False, "Sent /stop to @Helper.")
    assert seen["ended"] == (False, "Stopped by the client. Sent /stop to @Helper.")
