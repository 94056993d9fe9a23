"""The `retinue` entry point of retinue-web: only `@hookimpl` functions.

Kept cheap to import (every plugin manager imports it): the server and its dependencies load
only when `retinue web` runs or a `WebView` is made.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from retinue import hookimpl

if TYPE_CHECKING:
    from pydantic_ai.capabilities import AbstractCapability
    from retinue import AgentConfig


@hookimpl
def retinue_cli_commands(add_command: Callable[..., argparse.ArgumentParser]) -> None:
    """`retinue web [TEAM.toml] [--store PATH]`: a team, or recorded teams, in a browser."""
    from retinue_web.cli import add_web_command

    add_web_command(add_command)


@hookimpl
def retinue_session_options(parser: argparse.ArgumentParser) -> None:
    """`retinue run TEAM.toml --web` (and `retinue chat --web`): the page beside the console."""
    from retinue_web.cli import add_web_option

    add_web_option(parser)


@hookimpl
def retinue_session_started(team: Any, args: argparse.Namespace) -> Sequence[Callable[[], object]]:
    """Serve the page of the team the command started, when `--web` was given."""
    if getattr(args, "web", None) is None:
        return []
    from retinue_web.cli import attach_web

    return [attach_web(team, args.web)]


@hookimpl
def retinue_capabilities(config: AgentConfig) -> Sequence[AbstractCapability[Any]]:
    """Every agent notes its model requests and tool calls for a web view in this process.

    One instance for all (a `SharedCapability`), so agents keep sharing their pydantic-ai
    agent with the web view installed.
    """
    from retinue_web.activity import ACTIVITY

    return [ACTIVITY]
