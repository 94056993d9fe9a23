"""`retinue a2a serve TEAM.toml`: the arguments; the server loads only when it runs."""

from __future__ import annotations

import argparse
from collections.abc import Callable

from retinue.kit import add_serve_command

DEFAULT_PORT = 8767  # `retinue web` takes 8765 and `retinue mcp serve --http` 8766


def add_a2a_command(add_command: Callable[..., argparse.ArgumentParser]) -> None:
    """Add `a2a` and its `serve` subcommand to the `retinue` command."""
    serve = add_serve_command(
        add_command,
        "a2a",
        help="A2A: serve a team as an agent to A2A clients",
        serve_help="expose a team file's team as an A2A agent on 127.0.0.1",
        description=(
            "Start the team of TEAM.toml and serve it as one A2A agent (JSON-RPC, with "
            "streaming): each conversation (A2A context) is a team of its own, each task a "
            "request to its entry agent."
        ),
        port=DEFAULT_PORT,
        store_help="record the teams and their tasks there (a SQLite path or a postgresql:// "
        "URL); a server started again on it goes on where this one stopped",
    )
    serve.set_defaults(run=_serve)


def _serve(args: argparse.Namespace) -> int:
    from retinue_a2a.serve import serve_command

    return serve_command(args)
