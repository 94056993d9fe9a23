"""The `retinue` command; each subcommand lives in a module of its own with a `register`."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from retinue.cli import (
    chat,
    check,
    plugin_commands,
    plugin_new,
    plugins,
    replaying,
    resume,
    run,
    store_commands,
    team_new,
)


def _demo(args: argparse.Namespace) -> int:
    from retinue.cli.demo import run_demo

    run_demo(sys.stdout)
    return 0


def _version() -> str:
    """`retinue X (pydantic-ai Y, Python Z)`: what a bug report needs first."""
    from importlib.metadata import PackageNotFoundError, version

    import retinue

    try:
        pydantic_ai = version("pydantic-ai-slim")
    except PackageNotFoundError:
        pydantic_ai = "?"
    python = ".".join(str(part) for part in sys.version_info[:3])
    return f"retinue {retinue.__version__} (pydantic-ai {pydantic_ai}, Python {python})"


def build_parser() -> argparse.ArgumentParser:
    """The command's arguments; unknown commands and arguments are argparse errors."""
    parser = argparse.ArgumentParser(prog="retinue", description="Teams of LLM agents as actors.")
    parser.add_argument("--version", action="version", version=_version())
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    commands.add_parser("demo", help="run a small team offline on scripted models").set_defaults(
        run=_demo
    )
    plugins.register(commands)
    plugin_new.register(commands)
    team_new.register(commands)
    check.register(commands)
    run.register(commands)
    chat.register(commands)
    store_commands.register(commands)
    resume.register(commands)
    replaying.register(commands)
    plugin_commands.register(commands)  # last: the kernel's own names are taken first
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `retinue` command; alone, it prints its help."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 0
    from retinue.plugins import PluginError

    try:
        code: int = args.run(args)
    except PluginError as exc:
        print(f"retinue: {exc}", file=sys.stderr)
        return 1
    except BrokenPipeError:  # the output's reader left (`retinue ... | head`): end quietly
        _silence_stdout()
        return 1
    return code


def _silence_stdout() -> None:
    """Point stdout at /dev/null, so the interpreter's last flush raises nothing more."""
    import os

    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())


if __name__ == "__main__":
    raise SystemExit(main())
