"""Subcommands the installed plugins add to `retinue` (the `retinue_cli_commands` hook).

The kernel never imports a plugin: it asks each one, through the hook, to add its
subcommands to the parser. A plugin that fails in its hook or takes a name already used is
reported in one line on stderr naming it, and the kernel's commands and the other plugins'
keep working; one that cannot even be loaded adds nothing, and `retinue plugins` says why.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pluggy

CLI_HOOK = "retinue_cli_commands"


def register(commands: Any, pm: pluggy.PluginManager | None = None) -> None:
    """Let every installed plugin add its subcommands to `commands` (the subparsers).

    `pm` is the plugin manager to ask (a new one with the installed plugins by default).
    """
    from retinue.plugins import PluginError, get_plugin_manager
    from retinue.plugins.collect import plugin_hooks

    try:
        manager = pm if pm is not None else get_plugin_manager()
    except PluginError:  # `retinue plugins` names the plugin that cannot load, in one line
        return
    owners: dict[str, str] = {name: "the retinue command" for name in commands.choices}
    for source in plugin_hooks(manager, CLI_HOOK):

        def add_command(name: str, *, help: str, _label: str = source.label) -> Any:
            if name in owners:
                raise PluginError(
                    f"{_label} adds the subcommand {name!r}, which {owners[name]} already has"
                )
            parser: argparse.ArgumentParser = commands.add_parser(name, help=help)
            owners[name] = _label
            return parser

        try:
            source.call(add_command=add_command)
        except PluginError as exc:  # the conflict itself, or the plugin failing in its hook
            cause = exc.__cause__
            _warn(str(cause if isinstance(cause, PluginError) else exc))


def _warn(text: str) -> None:
    print(f"retinue: {text}", file=sys.stderr)
