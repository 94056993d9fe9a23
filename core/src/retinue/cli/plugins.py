"""`retinue plugins [--json]`: what the installed plugins give an agent."""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from retinue.cli.plugin_report import PluginReport


def register(commands: Any) -> None:
    """Add the `plugins` subcommand to the `retinue` command's subparsers."""
    parser = commands.add_parser(
        "plugins",
        help="list the installed plugins, their cards, tools, commands and capabilities",
        description="List the installed plugins: distributions with versions, their cards "
        "(default or not) with tools, commands, context sections and system prompt text, "
        "the capabilities they add and the role keys they give team files.",
    )
    parser.add_argument("--json", action="store_true", help="print the report as JSON")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    from retinue.cli.plugin_report import describe_installed
    from retinue.plugins import collect_card_classes, get_plugin_manager

    pm = get_plugin_manager()
    collect_card_classes(pm)  # one card name from two plugins: its one line, exit 1
    reports = describe_installed(pm)
    if args.json:
        json.dump([report.model_dump(mode="json") for report in reports], sys.stdout, indent=2)
        print()
    else:
        _print(reports)
    return 0


def _print(reports: list[PluginReport]) -> None:
    if not reports:
        print("no retinue plugins installed")
    for report in reports:
        cards = ", ".join(card.name for card in report.cards) or "no cards"
        print(f"{report.name:<12} {report.distribution or '?'} {report.version or ''}  ({cards})")
        for card in report.cards:
            default = "default" if card.default else "opt-in"
            print(f"  card {card.name} ({default}): {card.description}")
            _line("tools", [tool.name for tool in card.tools])
            _line("commands", [command.usage for command in card.commands])
            _line("context", card.context_sections)
            _line("toolsets", card.toolsets)
            _line("system prompt", card.system_prompts)
            _line("capabilities", [c for c in card.capabilities if c not in report.capabilities])
            for reason in card.unavailable:
                print(f"    unavailable here: {reason}")
            _line("not readable without an agent", card.problems)
        _line("capabilities for every agent", report.capabilities, indent="  ")
        for kind in report.role_kinds:
            about = f"{kind.description} " if kind.description else ""
            print(f"  role key {kind.key}: {about}({kind.agent_class}, its {kind.field})")


def _line(label: str, items: list[str], indent: str = "    ") -> None:
    if items:
        print(f"{indent}{label}: {', '.join(items)}")
