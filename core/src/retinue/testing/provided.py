"""What a plugin's hook module gives retinue, seen as retinue's discovery sees it."""

from __future__ import annotations

import inspect
from dataclasses import dataclass
from types import ModuleType

from retinue.plugins import collect_card_classes, default_card_classes, get_plugin_manager
from retinue.tools import ToolCard


@dataclass(frozen=True)
class Provided:
    """A hook module's functions and the cards a plugin manager with only it collects."""

    hooks: list[str]
    """The names of the functions the module defines itself (not those it imports), sorted:
    the hook implementations, and anything else that should not be there."""
    cards: dict[str, type[ToolCard]]
    """The card classes by name, as `retinue_tool_cards` offers them."""
    defaults: list[type[ToolCard]]
    """Those that every agent gets (`default = True`)."""


def provided_by(module: ModuleType) -> Provided:
    """What `module` (the plugin's `hooks` module, as its entry point names it) provides.

    A plugin's test asserts on each part, so a hook added, renamed or misspelt, or a card
    that turned default, fails there rather than in a team.
    """
    pm = get_plugin_manager(autoload=False, plugins=[module])
    own = [
        name
        for name, function in inspect.getmembers(module, inspect.isfunction)
        if function.__module__ == module.__name__
    ]
    return Provided(hooks=own, cards=collect_card_classes(pm), defaults=default_card_classes(pm))
