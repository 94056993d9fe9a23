"""`retinue mcp serve TEAM.toml`: the arguments; the server loads only when it runs."""

from __future__ import annotations

import argparse
from collections.abc import Callable

from retinue.kit import add_serve_command

DEFAULT_PORT = 8766  # `retinue web` takes 8765: both can run at once


def add_mcp_command(add_command: Callable[..., argparse.ArgumentParser]) -> None:
    """Add `mcp` and its `serve` subcommand to the `retinue` command."""
    serve = add_serve_command(
        add_command,
        "mcp",
        help="MCP: serve a team to MCP clients",
        serve_help="expose a team file's team as an MCP server (stdio unless --http)",
        description=(
            "Start the team of TEAM.toml and serve it over MCP: a tool to send a request to "
            "its entry agent and get the answer, a tool for its roster and usage, and stop. "
            "--port and --no-token are for --http."
        ),
        port=DEFAULT_PORT,
        store_help="record the team there (a SQLite path or a postgresql:// URL)",
    )
    serve.add_argument(
        "--http",
        action="store_true",
        help="serve streamable HTTP on 127.0.0.1 instead of stdio",
    )
    serve.add_argument(
        "--timeout",
        type=float,
        default=600.0,
        help="seconds one request may take before the tool answers that it timed out",
    )
    serve.set_defaults(run=_serve)


def _serve(args: argparse.Namespace) -> int:
    from retinue_mcp.command import serve_command

    return serve_command(args)
