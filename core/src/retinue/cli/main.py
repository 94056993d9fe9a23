"""The `retinue` command."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from retinue.cli import resume, store_commands


def _demo(args: argparse.Namespace) -> int:
    from retinue.cli.demo import run_demo

    run_demo(sys.stdout)
    return 0


def _plugins(args: argparse.Namespace) -> int:
    from retinue.plugins import collect_card_classes, describe_plugins, get_plugin_manager

    pm = get_plugin_manager()
    infos = describe_plugins(pm)
    if not infos:
        print("no retinue plugins installed")
    for info in infos:
        cards = ", ".join(info.cards) or "no cards"
        print(f"{info.name:<12} {info.distribution or '?'} {info.version or ''}  ({cards})")
    collect_card_classes(pm)  # one card name from two plugins: an error naming both, exit 1
    return 0


def build_parser() -> argparse.ArgumentParser:
    """The command's arguments; unknown commands and arguments are argparse errors."""
    parser = argparse.ArgumentParser(prog="retinue", description="Teams of LLM agents as actors.")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    commands.add_parser("demo", help="run a small team offline on scripted models").set_defaults(
        run=_demo
    )
    commands.add_parser("plugins", help="list the installed plugins and their cards").set_defaults(
        run=_plugins
    )
    store_commands.register(commands)
    resume.register(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `retinue` command."""
    args = build_parser().parse_args(argv)
    from retinue.plugins import PluginError

    try:
        code: int = args.run(args)
    except PluginError as exc:
        print(f"retinue: {exc}", file=sys.stderr)
        return 1
    return code


if __name__ == "__main__":
    raise SystemExit(main())
