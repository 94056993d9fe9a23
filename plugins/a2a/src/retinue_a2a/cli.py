"""`retinue a2a serve TEAM.toml`: the arguments; the server loads only when it runs."""

from __future__ import annotations

import argparse
from collections.abc import Callable

DEFAULT_PORT = 8767  # `retinue web` takes 8765 and `retinue mcp serve --http` 8766


def add_a2a_command(add_command: Callable[..., argparse.ArgumentParser]) -> None:
    """Add `a2a` and its `serve` subcommand to the `retinue` command."""
    a2a = add_command("a2a", help="A2A: serve a team as an agent to A2A clients")
    actions = a2a.add_subparsers(dest="a2a_command", required=True, metavar="ACTION")
    serve = actions.add_parser(
        "serve",
        help="expose a team file's team as an A2A agent on 127.0.0.1",
        description=(
            "Start the team of TEAM.toml and serve it as one A2A agent (JSON-RPC, with "
            "streaming): each conversation (A2A context) is a team of its own, each task a "
            "request to its entry agent."
        ),
    )
    serve.add_argument("team_file", metavar="TEAM.toml", help="the team file to serve")
    serve.add_argument(
        "--port", type=int, default=DEFAULT_PORT, help=f"port (default {DEFAULT_PORT})"
    )
    serve.add_argument(
        "--no-token",
        action="store_true",
        help="let any process of this machine call the team without the token printed at "
        "start (a trusted machine only)",
    )
    serve.add_argument(
        "--store",
        metavar="PATH_OR_URL",
        help="record the teams and their tasks there (a SQLite path or a postgresql:// URL); "
        "a server started again on it goes on where this one stopped",
    )
    serve.add_argument(
        "--model",
        metavar="MODEL",
        help='a model string for every role, overriding the file (e.g. "test")',
    )
    serve.set_defaults(run=_serve)


def _serve(args: argparse.Namespace) -> int:
    from retinue_a2a.serve import serve_command

    return serve_command(args)
