"""A server that cannot start or dies mid-run: the model is told, the log has one line, the
agent stays up, and the next run starts the server again."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path
from typing import Any

import pytest
from mcp_helpers import returns, role, stdio_card, work
from pydantic_ai.mcp import MCPToolset
from pydantic_ai.messages import ModelMessage, ModelRequest
from retinue.testing import TeamHarness, call_directive, send_directive
from retinue_mcp import McpTool, StdioConnection
from retinue_mcp.toolset import ServerToolset


def warnings_of(caplog: pytest.LogCaptureFixture) -> list[str]:
    return [
        r.getMessage()
        for r in caplog.records
        if r.name == "retinue_mcp" and r.levelno >= logging.WARNING
    ]


def instructions(team: TeamHarness, name: str) -> list[str]:
    """The instructions each model request carried, one per request.

    A request may end in more than one `ModelRequest` (mail that arrived mid-run is announced
    in one of its own): the instructions are on the newest one that has them.
    """
    return [_instructions_of(messages) for messages in team.model_requests(name)]


def _instructions_of(messages: list[ModelMessage]) -> str:
    for message in reversed(messages):
        if not isinstance(message, ModelRequest):
            break
        if message.instructions:
            return message.instructions
    return ""


def test_a_server_that_cannot_start_is_told_to_the_model_and_the_agent_answers(
    retinue_team: TeamHarness, caplog: pytest.LogCaptureFixture
) -> None:
    team = retinue_team
    missing = McpTool(connection=StdioConnection(command="/nonexistent/mcp-server"), server="files")
    clerk = team.add(role("Clerk", missing))

    team.say(clerk, send_directive("@Human", "response", "no files today"))
    team.say(clerk, send_directive("@Human", "response", "still none"))
    team.wait_idle(60)

    assert [m.content for m in team.received_by("@Human")] == ["no files today", "still none"]
    told = instructions(team, "@Clerk")
    assert len(told) == 2
    assert all("The MCP server 'files' is unavailable" in text for text in told)
    logged = warnings_of(caplog)
    assert len(logged) == 1  # one line, not one per run
    assert logged[0].startswith("MCP server 'files' did not start: ")
    assert "/nonexistent/mcp-server" in logged[0]


def test_a_server_down_across_runs_is_warned_once_however_its_error_is_worded(
    caplog: pytest.LogCaptureFixture,
) -> None:
    attempts: list[int] = []

    def connect() -> MCPToolset[Any]:
        attempts.append(len(attempts) + 1)
        raise OSError(f"connection refused (attempt {len(attempts)})")

    toolset = ServerToolset(connect, server="flaky")

    async def three_runs() -> None:
        for _ in range(3):
            await toolset.__aenter__()

    with caplog.at_level(logging.INFO, logger="retinue_mcp"):
        asyncio.run(three_runs())
    assert attempts == [1, 2, 3]  # each run tried again
    assert warnings_of(caplog) == [
        "MCP server 'flaky' did not start: connection refused (attempt 1)"
    ]
    assert toolset.failure == "MCP server 'flaky' did not start: connection refused (attempt 3)"


def test_an_unset_pass_env_variable_is_a_failed_start_naming_it(
    retinue_team: TeamHarness, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("RETINUE_MCP_TEST_TOKEN", raising=False)
    team = retinue_team
    card = stdio_card(server="demo", connection={"pass_env": ["RETINUE_MCP_TEST_TOKEN"]})
    clerk = team.add(role("Clerk", card))

    team.say(clerk, send_directive("@Human", "response", "ok"))
    team.wait_idle(60)

    assert [m.content for m in team.received_by("@Human")] == ["ok"]
    assert warnings_of(caplog) == [
        "MCP server 'demo' did not start: environment variable RETINUE_MCP_TEST_TOKEN "
        "(pass_env) is not set"
    ]


def _running(pid: int) -> bool:
    status = Path(f"/proc/{pid}/status")
    if not status.exists():
        return False
    state = next(line for line in status.read_text().splitlines() if line.startswith("State:"))
    return "zombie" not in state


def test_a_server_dying_mid_run_is_a_failed_call_and_the_next_run_restarts_it(
    retinue_team: TeamHarness, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.INFO, logger="retinue_mcp")
    team = retinue_team
    clerk = team.add(role("Clerk", stdio_card(server="demo")))

    work(
        team,
        clerk,
        call_directive("add", {"a": 1, "b": 1}),
        call_directive("crash"),
        call_directive("add", {"a": 2, "b": 2}),
        answer="the server died",
    )

    first = returns(team, "@Clerk")
    assert [(tool, outcome) for tool, outcome, _ in first] == [
        ("add", "success"),
        ("crash", "failed"),
        ("add", "failed"),
    ]
    assert first[1][2].startswith("MCP server 'demo' stopped during a call to crash: ")
    assert first[2][2] == first[1][2]  # the same reason, told again without a new attempt
    assert "it is started again at the next run" in first[2][2]
    assert [m.content for m in team.received_by("@Human")] == ["the server died"]
    assert len(warnings_of(caplog)) == 1

    work(
        team,
        clerk,
        call_directive("add", {"a": 3, "b": 3}),
        call_directive("pid"),
        answer="back",
    )

    again = returns(team, "@Clerk")[len(first) :]
    assert [(tool, outcome, content) for tool, outcome, content in again][:1] == [
        ("add", "success", "6")
    ]
    assert [m.content for m in team.received_by("@Human")] == ["the server died", "back"]
    assert any(
        r.getMessage() == "MCP server 'demo' is running again"
        for r in caplog.records
        if r.name == "retinue_mcp"
    )

    pid = int(again[1][2])
    assert _running(pid)
    team.shutdown(30)
    assert not _running(pid)  # the agent's stop ends its server
