"""The options `retinue run` and `retinue chat` share; cheap to import (no team code)."""

from __future__ import annotations

import argparse
import logging

from retinue.cli.recording import add_record_arguments

LEVELS = ("debug", "info", "warning", "error")


def add_logging_arguments(parser: argparse.ArgumentParser) -> None:
    """`-v/--verbose` (repeatable) and `--log-level`."""
    parser.add_argument(
        "-v",
        "--verbose",
        action="count",
        default=0,
        help="show more: every text in full, tool calls, each run's end and usage; with it "
        "retinue's log at INFO, -vv at DEBUG (tracebacks too)",
    )
    parser.add_argument(
        "--log-level",
        choices=LEVELS,
        type=str.lower,
        help="the level of retinue's log on stderr (default: warning, or as -v says)",
    )


def level_of(args: argparse.Namespace) -> int:
    """The level `--log-level` or `-v` asks for."""
    if args.log_level is not None:
        return int(getattr(logging, args.log_level.upper()))
    return {0: logging.WARNING, 1: logging.INFO}.get(args.verbose, logging.DEBUG)


def add_drive_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of a driven team: timeouts, streaming."""
    parser.add_argument(
        "--no-stream",
        dest="stream",
        action="store_false",
        help="at a terminal, show an answer once it is whole instead of as the model writes "
        "it (a pipe always gets whole answers)",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=600.0,
        metavar="SECONDS",
        help="how long the team may work on a --message, or on a line read from a pipe, "
        "before the command gives up waiting (default: 600)",
    )
    parser.add_argument(
        "--shutdown-timeout",
        type=float,
        default=10.0,
        metavar="SECONDS",
        help="how long the team may take to stop when the session ends (default: 10)",
    )


def add_session_arguments(parser: argparse.ArgumentParser) -> None:
    """Everything a new session a person drives takes: recording, driving, logging."""
    add_record_arguments(parser)
    add_drive_arguments(parser)
    add_logging_arguments(parser)
