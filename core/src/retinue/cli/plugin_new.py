"""`retinue plugin new NAME [--dir PATH]`: a complete plugin distribution to start from.

It writes the folder PATH/NAME: a pyproject with its entry point and a range on the
installed kernel, the package with a card serving each channel, its hooks and a capability,
tests on `retinue.testing`, a README. `pip install -e './NAME[test]' && pytest NAME` passes
as it is. A name that cannot be a plugin's, or that is taken (by a folder, an installed
distribution, entry point, card or command), is refused in one line, with exit status 2,
and nothing is written.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import sys
from pathlib import Path
from typing import Any

from retinue.cli.plugin_names import PluginNameError, PluginNames
from retinue.cli.template_files import add_folder_command, folder_problem, write_new_folder

AGENT_COMMANDS = frozenset({"budget", "clear", "compact", "continue"})
"""The commands every agent has besides its cards' (`BaseAgent`'s own)."""


def register(commands: Any) -> None:
    """Add the `plugin` subcommand (with its action `new`) to the `retinue` command."""
    plugin = (
        "plugin",
        "start a new plugin from retinue's template",
        "Start a new plugin: `retinue plugin new NAME` writes a complete, tested plugin "
        "distribution in the folder NAME.",
    )
    new = (
        "new",
        "write a new plugin distribution in the folder NAME",
        "Write a complete plugin distribution, retinue-NAME, in the folder NAME: a card "
        "serving a tool, a command, a context section and a system prompt line, its hooks, "
        "tests on retinue.testing and a README. Then: pip install -e './NAME[test]' && "
        "pytest NAME.",
    )
    add_folder_command(
        commands, plugin, new, "the plugin's name, e.g. notes or web-search", run_new
    )


def run_new(args: argparse.Namespace) -> int:
    import retinue
    from retinue.cli.plugin_template import render

    parent: Path = args.dir
    try:
        names = PluginNames.of(args.name)
        folder = parent / names.name
        _refuse_taken(names, folder, retinue.__version__)
    except PluginNameError as exc:
        print(f"retinue plugin new: {exc}", file=sys.stderr)
        return 2
    shown = folder if folder.is_absolute() or str(folder).startswith(".") else f"./{folder}"
    steps = [f"pip install -e '{shown}[test]'", f"pytest {shown}", "retinue plugins"]
    written = render(names, retinue.__version__)
    return write_new_folder(
        "retinue plugin new", folder, written, f"{names.distribution} in {shown}", steps
    )


def _refuse_taken(names: PluginNames, folder: Path, kernel_version: str) -> None:
    """Raise `PluginNameError` when the folder or any of the plugin's names is taken."""
    from retinue.cli.plugin_template import card_members
    from retinue.tools import ToolCard

    problem = folder_problem(folder)
    if problem is not None:
        raise PluginNameError(problem)
    if names.slug in card_members(kernel_version) or hasattr(ToolCard, names.slug):
        raise PluginNameError(
            f"{names.name!r} cannot name a plugin: the card's command is a method of that "
            "name, and the card already has a member so named; choose another name"
        )
    try:
        installed = importlib.metadata.distribution(names.distribution)
    except importlib.metadata.PackageNotFoundError:
        pass
    else:
        raise PluginNameError(
            f"{names.distribution} {installed.version} is already installed; choose another name"
        )
    for entry_point in importlib.metadata.entry_points(group="retinue", name=names.slug):
        owner = entry_point.dist.name if entry_point.dist is not None else "a distribution"
        raise PluginNameError(f"{owner} has the plugin {names.slug!r}; choose another name")
    if names.slug in AGENT_COMMANDS:
        raise PluginNameError(f"every agent has /{names.slug}; choose another name")
    taken = _installed_names().get(names.slug)
    if taken is not None:
        raise PluginNameError(f"{taken}; choose another name")


def _installed_names() -> dict[str, str]:
    """Card and command names of the installed plugins, each with the sentence saying so.

    When the installed plugins cannot all be loaded, a note says the card names went
    unchecked and nothing more is done about it here: `retinue plugins` says what is wrong.
    """
    from retinue.cli.plugin_report import describe_card
    from retinue.plugins import PluginError, collect_card_classes, get_plugin_manager

    try:
        cards = collect_card_classes(get_plugin_manager())
    except PluginError as exc:
        print(f"retinue plugin new: note: installed cards not checked: {exc}", file=sys.stderr)
        return {}
    taken: dict[str, str] = {}
    for card_name, card_class in cards.items():
        taken[card_name] = f"an installed card is named {card_name!r}"
        for command in describe_card(card_class).commands:
            taken.setdefault(command.name, f"the installed card {card_name!r} has /{command.name}")
    return taken
