"""The `retinue` entry point of retinue-a2a: only `@hookimpl` functions.

Kept cheap to import (every plugin manager imports it): the A2A SDK loads only when a
team is served or an `A2AMember` is built.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable

from retinue import hookimpl


@hookimpl
def retinue_cli_commands(add_command: Callable[..., argparse.ArgumentParser]) -> None:
    """`retinue a2a serve TEAM.toml`: a team as an A2A agent."""
    from retinue_a2a.cli import add_a2a_command

    add_a2a_command(add_command)
