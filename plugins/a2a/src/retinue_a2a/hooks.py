"""The `retinue` entry point of retinue-a2a: only `@hookimpl` functions.

Kept cheap to import (every plugin manager imports it): the A2A SDK loads only when a
team is served or an `A2AMember` is built.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

from retinue import RoleKind, hookimpl


@hookimpl
def retinue_cli_commands(add_command: Callable[..., argparse.ArgumentParser]) -> None:
    """`retinue a2a serve TEAM.toml`: a team as an A2A agent."""
    from retinue_a2a.cli import add_a2a_command

    add_a2a_command(add_command)


@hookimpl
def retinue_role_kinds() -> list[RoleKind]:
    """`a2a = "http://..."` in a team file's role: its members are that remote A2A agent."""
    return [
        RoleKind(
            key="a2a",
            agent_class="retinue_a2a:A2AMember",
            field="url",
            description="a remote A2A agent at this URL",
        )
    ]
