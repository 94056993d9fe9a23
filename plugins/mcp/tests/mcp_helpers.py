"""Roles for the MCP tests: an agent that follows its message's directives, with MCP cards."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from retinue import ActorAddress, AgentCard, ToolCard
from retinue.testing import FOLLOW, TeamHarness, script, scripted_card, tool_returns
from retinue_mcp import McpTool, StdioConnection

DEMO_SERVER = Path(__file__).parent / "servers" / "demo_server.py"
"""The test MCP server (stdio, streamable HTTP or SSE); imported from here, not from
conftest.py, as every test directory has a conftest module of that name."""


def stdio_card(**settings: Any) -> McpTool:
    """The demo server over stdio, as a card."""
    connection = settings.pop("connection", {})
    return McpTool(
        connection=StdioConnection(
            command=sys.executable, args=[str(DEMO_SERVER), "stdio"], **connection
        ),
        **settings,
    )


def role(name: str, *cards: ToolCard, script: str = FOLLOW) -> AgentCard:
    """A role whose agent carries `cards` and runs `script`."""
    return scripted_card(name, script, tools=cards)


def returns(team: TeamHarness, name: str) -> list[tuple[str, str, str]]:
    """(tool, outcome, content) of every tool result the agent's model was shown, in order."""
    seen: dict[str, tuple[str, str, str]] = {}
    for messages in team.model_requests(name):
        for part in tool_returns(messages):
            if part.tool_name != "final_result":
                seen.setdefault(
                    part.tool_call_id, (part.tool_name, str(part.outcome), str(part.content))
                )
    return list(seen.values())


#: The team `retinue mcp serve` serves in these tests, and how long one of its steps may take.
TEAM = Path(__file__).parent / "teams" / "relay.toml"
TIMEOUT = 120


def work(
    team: TeamHarness, member: ActorAddress, *calls: str, answer: str, timeout: float = TIMEOUT
) -> None:
    """`member` makes `calls` (`call_directive` lines) in one run, then answers the person
    `answer`; returns once the team is quiet (a server's start can take seconds)."""
    team.say(member, script(*calls, answer=answer))
    team.wait_idle(timeout)
