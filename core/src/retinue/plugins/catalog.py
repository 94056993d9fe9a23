"""`PluginCatalog`: what a plugin manager's plugins give agents, collected once.

Card classes are the same for every agent, so they are collected when the catalog is built,
and an actor system builds one catalog for all its agents: starting an agent, a hire
included, then costs no discovery and no card hook call. Capabilities are about one
agent's config, so they are asked for per agent, through callers prepared here.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

import pluggy

from retinue.plugins.collect import (
    CAPABILITIES_HOOK,
    CARDS_HOOK,
    OBSERVERS_HOOK,
    capabilities_from,
    collect_card_classes,
    plugin_hooks,
    turn_observers_from,
)

if TYPE_CHECKING:
    from pydantic_ai.capabilities import AbstractCapability

    from retinue.actors.turns import TurnObserver
    from retinue.agent.config import AgentConfig
    from retinue.tools.card import ToolCard


class PluginCatalog:
    """The card classes and capability sources of one plugin manager, as registered now.

    Building one collects the cards, so it raises what collecting raises (a
    `CardConflictError`, a `PluginError` naming the plugin). `is_current()` tells whether a
    plugin was registered or unregistered since; the holder then builds a new catalog.
    """

    def __init__(self, pm: pluggy.PluginManager) -> None:
        self.pm = pm
        self._registered = _implementations(pm)
        self.card_classes: Mapping[str, type[ToolCard]] = MappingProxyType(collect_card_classes(pm))
        """Every installed card class by name, sorted by name."""
        self.default_cards: tuple[type[ToolCard], ...] = tuple(
            card for card in self.card_classes.values() if card.default
        )
        """The cards marked `default = True`, sorted by card name."""
        self._capability_sources = [
            (source.label, source) for source in plugin_hooks(pm, CAPABILITIES_HOOK)
        ]
        self._observer_sources = [
            (source.label, source) for source in plugin_hooks(pm, OBSERVERS_HOOK)
        ]

    def is_current(self) -> bool:
        """Whether the manager still holds exactly the implementations this was built from."""
        return _implementations(self.pm) == self._registered

    def capabilities(self, config: AgentConfig) -> list[tuple[str, AbstractCapability[Any]]]:
        """The plugins' capabilities for an agent built from `config`, each with its label.

        In plugin registration order; the label names the plugin and its distribution, for
        reporting a capability that fails in a run.
        """
        if not self._capability_sources:
            return []
        return capabilities_from(self._capability_sources, config)

    def turn_observers(self, config: AgentConfig) -> list[tuple[str, TurnObserver]]:
        """The plugins' turn observers for an agent built from `config`, each with its label."""
        if not self._observer_sources:
            return []
        return turn_observers_from(self._observer_sources, config)


def _implementations(pm: pluggy.PluginManager) -> tuple[tuple[Any, ...], ...]:
    """The implementations of the collection hooks; pluggy makes new ones on registering."""
    return tuple(
        tuple(getattr(pm.hook, hook).get_hookimpls()) for hook in (CARDS_HOOK, CAPABILITIES_HOOK)
    )
