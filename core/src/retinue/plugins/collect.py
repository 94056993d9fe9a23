"""Collecting what the plugins provide: card classes, capabilities, and a report of both.

Every hook call goes through pluggy, one plugin at a time: `pm.subset_hook_caller` gives a
caller that reaches only that plugin's implementation. pluggy still does the calling (the
arguments each implementation names, the spec's defaults, `pm.enable_tracing()` and
`pm.add_hookcall_monitoring()`), and the kernel still knows which plugin returned what, so
an error names the plugin and its distribution.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pluggy
from pydantic import BaseModel, ConfigDict, Field

from retinue.plugins.manager import (
    DISABLED_PLUGINS_ENV,
    CardConflictError,
    PluginError,
    distribution_of,
    plugin_label,
)

if TYPE_CHECKING:
    from pydantic_ai.capabilities import AbstractCapability

    from retinue.actors.turns import TurnObserver
    from retinue.agent.config import AgentConfig
    from retinue.team.panels import Panel
    from retinue.tools.card import ToolCard

CARDS_HOOK = "retinue_tool_cards"
CAPABILITIES_HOOK = "retinue_capabilities"
OBSERVERS_HOOK = "retinue_turn_observers"
PANELS_HOOK = "retinue_panels"


@dataclass(frozen=True)
class PluginHook:
    """One plugin's implementation of one hook, with a pluggy caller that reaches it alone."""

    pm: pluggy.PluginManager
    plugin: object
    hook: str
    caller: pluggy.HookCaller

    @property
    def label(self) -> str:
        """The plugin and where it came from, as errors name it."""
        return plugin_label(self.pm, self.plugin)

    def call(self, **kwargs: Any) -> list[Any]:
        """What the plugin returned, as a list; a `PluginError` naming it if that fails.

        A plugin that returns None gave nothing; one that raises, or returns something that
        is not a sequence, is reported with its name and distribution.
        """
        try:
            results: list[Any] = self.caller(**kwargs)
        except BaseException as exc:  # SystemExit too: a plugin never ends its host
            raise PluginError(
                f"{self.label} failed in {self.hook}: {type(exc).__name__}: {exc}"
            ) from exc
        items: list[Any] = []
        for returned in results:  # pluggy leaves out a None; one result per implementation
            if not isinstance(returned, Iterable) or isinstance(returned, str | bytes | Mapping):
                raise PluginError(
                    f"{self.label} returned {returned!r} from {self.hook}; expected a sequence"
                )
            items.extend(returned)
        return items


def plugin_hooks(pm: pluggy.PluginManager, hook: str) -> list[PluginHook]:
    """The plugins implementing `hook`, in registration order, each with its own caller."""
    caller: pluggy.HookCaller = getattr(pm.hook, hook)
    implementing = {id(impl.plugin): impl.plugin for impl in caller.get_hookimpls()}
    ordered = [
        plugin
        for _, plugin in pm.list_name_plugin()
        if plugin is not None and id(plugin) in implementing
    ]
    return [
        PluginHook(
            pm,
            plugin,
            hook,
            pm.subset_hook_caller(hook, remove_plugins=[p for p in ordered if p is not plugin]),
        )
        for plugin in ordered
    ]


# -- cards -----------------------------------------------------------------------------------


def cards_by_plugin(pm: pluggy.PluginManager) -> list[tuple[object, list[type[ToolCard]]]]:
    """Each plugin providing cards, with the card classes it returned (checked)."""
    from retinue.tools.card import ToolCard, card_name

    found: list[tuple[object, list[type[ToolCard]]]] = []
    for source in plugin_hooks(pm, CARDS_HOOK):
        cards: list[type[ToolCard]] = []
        for item in source.call():
            if not (isinstance(item, type) and issubclass(item, ToolCard)):
                raise PluginError(
                    f"{source.label} returned {item!r} from {CARDS_HOOK}; expected ToolCard "
                    "subclasses (the classes, not instances)"
                )
            try:
                card_name(item)
            except TypeError as exc:
                raise PluginError(f"{source.label}: {exc}") from None
            cards.append(item)
        found.append((source.plugin, cards))
    return found


def collect_card_classes(pm: pluggy.PluginManager) -> dict[str, type[ToolCard]]:
    """Every installed card class by name, sorted by name.

    Raises `CardConflictError` naming both plugins and distributions when two different
    classes claim one name: a team file's `tools = ["planning"]` must mean one thing. The
    same class offered twice (a plugin re-exporting another's card) is not a conflict.
    """
    classes: dict[str, type[ToolCard]] = {}
    sources: dict[str, object] = {}
    for plugin, cards in cards_by_plugin(pm):
        for card in cards:
            name: str = card.name
            existing = classes.get(name)
            if existing is not None and existing is not card:
                raise CardConflictError(
                    f"tool card {name!r} is provided twice: {_qualname(existing)} by "
                    f"{plugin_label(pm, sources[name])} and {_qualname(card)} by "
                    f"{plugin_label(pm, plugin)}. Uninstall one, or skip one, e.g. with "
                    f"{DISABLED_PLUGINS_ENV}={pm.get_name(plugin)}"
                )
            classes[name] = card
            sources.setdefault(name, plugin)
    return dict(sorted(classes.items()))


def default_card_classes(pm: pluggy.PluginManager) -> list[type[ToolCard]]:
    """The installed cards marked `default = True`, sorted by card name.

    Sorting by name rather than by discovery order keeps every agent's tool list, and so its
    prompt, identical from one machine (and one install order) to the next.
    """
    return [card for card in collect_card_classes(pm).values() if card.default]


# -- capabilities ----------------------------------------------------------------------------


def capabilities_from(
    sources: Iterable[tuple[str, PluginHook]], config: AgentConfig
) -> list[tuple[str, AbstractCapability[Any]]]:
    """Ask each `(label, source)` for its capabilities for `config`, checked and labelled."""
    from pydantic_ai.capabilities import AbstractCapability

    expected = "pydantic-ai AbstractCapability instances"
    return _per_agent(sources, config, CAPABILITIES_HOOK, AbstractCapability, expected)


def capabilities_by_plugin(
    pm: pluggy.PluginManager, config: AgentConfig
) -> list[tuple[str, AbstractCapability[Any]]]:
    """As `collect_capabilities`, each with a label naming its plugin and distribution.

    The label is what a failure of the capability during a run is reported with.
    """
    sources = plugin_hooks(pm, CAPABILITIES_HOOK)
    return capabilities_from(((source.label, source) for source in sources), config)


def collect_capabilities(
    pm: pluggy.PluginManager, config: AgentConfig
) -> list[AbstractCapability[Any]]:
    """The extra pydantic-ai capabilities all plugins give an agent built from `config`.

    Flattened in plugin registration order: capability hooks run in list order, so a
    capability's place here is its place around every model request.
    """
    return [capability for _, capability in capabilities_by_plugin(pm, config)]


def turn_observers_from(
    sources: Iterable[tuple[str, PluginHook]], config: AgentConfig
) -> list[tuple[str, TurnObserver]]:
    """Ask each `(label, source)` for its turn observers for `config`, checked and labelled."""
    from retinue.actors.turns import TurnObserver

    expected = "turn observers (objects with turn(message) and report(message))"
    return _per_agent(sources, config, OBSERVERS_HOOK, TurnObserver, expected)


def _per_agent(
    sources: Iterable[tuple[str, PluginHook]],
    config: AgentConfig,
    hook: str,
    kind: type[Any],
    expected: str,
) -> list[tuple[str, Any]]:
    """What each source returns from a per-agent hook, each item checked to be a `kind`."""
    items: list[tuple[str, Any]] = []
    for label, source in sources:
        for item in source.call(config=config):
            if not isinstance(item, kind):
                raise PluginError(f"{label} returned {item!r} from {hook}; expected {expected}")
            items.append((label, item))
    return items


# -- panels ----------------------------------------------------------------------------------


def collect_panel_classes(pm: pluggy.PluginManager) -> dict[str, type[Panel]]:
    """Every installed panel class by name, sorted by name (the `retinue_panels` hook).

    A `PluginError` names the plugin that returns something other than `Panel` subclasses
    with a `name`, or a name another plugin's panel already has.
    """
    from retinue.team.panels import Panel

    classes: dict[str, type[Panel]] = {}
    owners: dict[str, str] = {}
    for source in plugin_hooks(pm, PANELS_HOOK):
        for item in source.call():
            if not (isinstance(item, type) and issubclass(item, Panel)):
                raise PluginError(
                    f"{source.label} returned {item!r} from {PANELS_HOOK}; expected Panel "
                    "subclasses (the classes, not instances)"
                )
            name = getattr(item, "name", None)
            if not isinstance(name, str) or not name:
                raise PluginError(f"{source.label}: panel {_qualname(item)} has no name")
            if name in classes and classes[name] is not item:
                raise PluginError(
                    f"panel {name!r} is provided twice: by {owners[name]} and {source.label}"
                )
            classes[name] = item
            owners.setdefault(name, source.label)
    return dict(sorted(classes.items()))


# -- reports ---------------------------------------------------------------------------------


class PluginInfo(BaseModel):
    """One active plugin, as plain data (what `retinue plugins` prints)."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    name: str = Field(description="The entry-point name (or the name it was registered under).")
    module: str | None = Field(description="The module or object registered as the plugin.")
    distribution: str | None = Field(
        description="The distribution that declared the entry point; None if registered in code."
    )
    version: str | None = Field(description="That distribution's version.")
    cards: list[str] = Field(description="Names of the tool cards the plugin provides.")
    hooks: list[str] = Field(description="The retinue hooks the plugin implements.")


def describe_plugins(pm: pluggy.PluginManager) -> list[PluginInfo]:
    """The active plugins in registration order, with their distribution and cards."""
    cards = {id(plugin): [card.name for card in found] for plugin, found in cards_by_plugin(pm)}
    described: list[PluginInfo] = []
    for name, plugin in pm.list_name_plugin():
        if plugin is None:  # a blocked name
            continue
        dist = distribution_of(pm, plugin)
        hooks = sorted(caller.name for caller in pm.get_hookcallers(plugin) or ())
        described.append(
            PluginInfo(
                name=name,
                module=getattr(plugin, "__name__", None) or type(plugin).__qualname__,
                distribution=None if dist is None else str(dist.metadata["Name"]),
                version=None if dist is None else str(dist.version),
                cards=cards.get(id(plugin), []),
                hooks=hooks,
            )
        )
    return described


def _qualname(cls: type[Any]) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"
