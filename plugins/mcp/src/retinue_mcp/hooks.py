"""The `retinue` entry point of retinue-mcp: only `@hookimpl` functions.

Kept cheap to import (every plugin manager imports it): the card and the server load
pydantic-ai's MCP client and the MCP SDK only when they are used.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from retinue import hookimpl

if TYPE_CHECKING:
    from retinue import ToolCard


@hookimpl
def retinue_tool_cards() -> Sequence[type[ToolCard]]:
    """The MCP card. Not a default: an agent gets it by naming it with its connection."""
    from retinue_mcp.card import McpTool

    return [McpTool]


@hookimpl
def retinue_cli_commands(add_command: Callable[..., argparse.ArgumentParser]) -> None:
    """`retinue mcp serve TEAM.toml`: a team as an MCP server."""
    from retinue_mcp.cli import add_mcp_command

    add_mcp_command(add_command)
