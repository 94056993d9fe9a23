"""`retinue PROTOCOL serve TEAM.toml`: a plugin's command that serves a team file's team.

retinue-mcp and retinue-a2a each add one. `add_serve_command` adds the command with the
options every such command has (`--port`, `--no-token`, `--store`, `--model`); the plugin
adds its own to the parser it returns. `load_served_team` reads what the command serves:
the team file and the model `--model` names, or, when anything is wrong, one line per
problem on stderr (the command's own option problems among them), so the command exits
before it starts anything.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Iterable

from retinue.llm.config import ModelConfig
from retinue.teamfile import TeamFile, TeamFileError, load_team_file


def add_serve_command(
    add_command: Callable[..., argparse.ArgumentParser],
    protocol: str,
    *,
    help: str,
    serve_help: str,
    description: str,
    port: int,
    store_help: str,
) -> argparse.ArgumentParser:
    """Add `retinue PROTOCOL serve TEAM.toml` through `add_command` (a plugin's
    `retinue_cli_commands` hook gets it); the `serve` parser, for the protocol's options
    and its `run`. `port`: the default `--port`."""
    command = add_command(protocol, help=help)
    actions = command.add_subparsers(dest=f"{protocol}_command", required=True, metavar="ACTION")
    serve = actions.add_parser("serve", help=serve_help, description=description)
    serve.add_argument("team_file", metavar="TEAM.toml", help="the team file to serve")
    serve.add_argument("--port", type=int, default=port, help=f"port (default {port})")
    serve.add_argument(
        "--no-token",
        action="store_true",
        help="let any process of this machine call the team without the token printed at "
        "start (a trusted machine only)",
    )
    serve.add_argument("--store", metavar="PATH_OR_URL", help=store_help)
    serve.add_argument(
        "--model",
        metavar="MODEL",
        help='a model string for every role, overriding the file (e.g. "test")',
    )
    return serve


def load_served_team(
    args: argparse.Namespace, command: str, problems: Iterable[str | None] = ()
) -> tuple[TeamFile, ModelConfig | None] | None:
    """The team file `args.team_file` and the model `args.model` names (None: the file's).

    None when anything is wrong: each problem of the file, of the model, and of `problems`
    (the command's own options; a None is no problem) printed as a line `COMMAND: problem`
    on stderr."""
    lines: list[str] = []
    try:
        spec = load_team_file(args.team_file)
        model = ModelConfig.from_string(args.model) if args.model else None
    except (TeamFileError, ValueError) as exc:
        lines.extend(str(exc).splitlines())
    lines.extend(problem for problem in problems if problem)
    if lines:
        for line in lines:
            print(f"{command}: {line}", file=sys.stderr)
        return None
    return spec, model
