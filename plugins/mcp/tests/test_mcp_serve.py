"""A team served over MCP, driven by the SDK's own client over stdio (`retinue mcp serve`)."""

from __future__ import annotations

import asyncio
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from mcp import types
from mcp.client.session import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp_helpers import TEAM, TIMEOUT, returns, role, work
from retinue.testing import TeamHarness, call_directive, lines_until
from retinue_mcp import HttpConnection, McpTool


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
        # The request is sent; wait until @Helper has taken it up (its busy flag), so the
        # stop finds it at work.
        deadline = asyncio.get_running_loop().time() + TIMEOUT
        while "- @Helper, Helper, busy" not in text_of(await session.call_tool("team", {})):
            assert asyncio.get_running_loop().time() < deadline, "@Helper never got to work"
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


def test_a_team_served_over_http_is_a_tool_of_another_teams_agent(
    retinue_team: TeamHarness,
) -> None:
    with socket.socket() as sock:  # a free port; the server takes it a moment later
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    process = subprocess.Popen(
        [sys.executable, "-m", "retinue", "mcp", "serve", str(TEAM), "--http", "--port", str(port)],
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        lines = lines_until(process.stderr, f"Uvicorn running on http://127.0.0.1:{port}")
        assert any(f"MCP endpoint http://127.0.0.1:{port}/mcp" in line for line in lines)
        url = next(line for line in lines if "MCP endpoint" in line).split()[-1]
        card = McpTool(
            connection=HttpConnection(url=url),  # with the token it printed
            server="relay",
            tool_prefix="relay",
        )
        clerk = retinue_team.add(role("Clerk", card))
        work(
            retinue_team,
            clerk,
            call_directive("relay_ask", {"request": "seven times six"}),
            answer="asked",
        )
        assert returns(retinue_team, "@Clerk") == [
            ("relay_ask", "success", "@Lead (response): The team's answer: SEVEN TIMES SIX = 42")
        ]
    finally:
        process.terminate()
        process.wait(30)


def test_a_bad_team_file_or_option_is_one_line_and_exit_status_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from retinue.cli.main import main

    broken = tmp_path / "broken.toml"
    broken.write_text('[team]\nname = "x"\n[roles.A]\ndescription = "a"\nmodel = "nonsense:"\n')
    assert main(["mcp", "serve", str(tmp_path / "missing.toml")]) == 1
    assert main(["mcp", "serve", str(broken)]) == 1
    assert main(["mcp", "serve", str(TEAM), "--http", "--port", "70000"]) == 1
    assert main(["mcp", "serve", str(TEAM), "--timeout", "0"]) == 1
    lines = capsys.readouterr().err.strip().splitlines()
    assert all(line.startswith("retinue mcp serve: ") for line in lines)
    assert "missing.toml" in lines[0]
    assert any("roles.A.model" in line for line in lines[1:-2])
    assert lines[-2] == "retinue mcp serve: --port must be 1-65535, got 70000"
    assert lines[-1] == "retinue mcp serve: --timeout must be above 0, got 0"
