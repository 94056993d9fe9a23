"""What the installed plugins add to `retinue`: subcommands (`retinue_cli_commands`), and
options of the commands that run a team for a person, with what they attach to the team
(`retinue_session_options`, `retinue_session_started`: `retinue run --web`).

The kernel never imports a plugin: it asks each one, through the hooks, to add to the
parser. A plugin that fails in its hook or takes a name already used is reported in one
line on stderr naming it, and the kernel's commands and the other plugins' keep working;
one that cannot even be loaded adds nothing, and `retinue plugins` says why.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pluggy

CLI_HOOK = "retinue_cli_commands"
OPTIONS_HOOK = "retinue_session_options"
STARTED_HOOK = "retinue_session_started"
#: The commands that run a team for a person, which plugins may add options to.
SESSION_COMMANDS = ("run", "chat")


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
    for name in SESSION_COMMANDS:
        parser = commands.choices.get(name)
        if parser is not None:
            _add_session_options(parser, manager)


def _add_session_options(parser: argparse.ArgumentParser, manager: pluggy.PluginManager) -> None:
    from retinue.plugins import PluginError
    from retinue.plugins.collect import plugin_hooks

    parser.set_defaults(session_plugins=manager)
    for source in plugin_hooks(manager, OPTIONS_HOOK):
        try:
            source.call(parser=parser)
        except PluginError as exc:  # an option the command has, or the hook failing
            _warn(str(exc))


def session_started(team: Any, args: argparse.Namespace) -> list[Callable[[], object]]:
    """Let the plugins attach to a team a command started; what to call when it ends."""
    from retinue.plugins import PluginError
    from retinue.plugins.collect import plugin_hooks

    manager = getattr(args, "session_plugins", None)
    if manager is None:
        return []
    closers: list[Callable[[], object]] = []
    for source in plugin_hooks(manager, STARTED_HOOK):
        try:
            closers.extend(source.call(team=team, args=args))
        except PluginError as exc:
            _warn(str(exc))
    return closers


def session_ended(closers: list[Callable[[], object]]) -> None:
    """Call what the plugins asked to be called at the end, the last attached first."""
    for close in reversed(closers):
        try:
            close()
        # one plugin failing to close leaves the others to close
        except Exception as exc:  # noqa: BLE001
            _warn(f"a plugin failed to close at the end of the session: {exc}")


def _warn(text: str) -> None:
    print(f"retinue: {text}", file=sys.stderr)
