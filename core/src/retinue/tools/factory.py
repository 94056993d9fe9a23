"""Choosing an agent's cards and assembling them into what the agent consumes.

`resolve_cards` and `with_default_cards` decide *which* cards an agent gets; `ToolFactory`
binds them to the agent and serves each channel, collected once, to its one consumer.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping, Sequence
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from retinue.tools.card import ToolCard, card_name
from retinue.tools.context_updates import ContextUpdater
from retinue.tools.errors import (
    DuplicateContextProviderError,
    DuplicateToolCardError,
    UnknownToolCardError,
)
from retinue.tools.state import ToolState, tool_state_of

if TYPE_CHECKING:
    from pydantic_ai import Tool
    from pydantic_ai.toolsets import AbstractToolset

    from retinue.tools.channels import ContextProvider
    from retinue.tools.commands import CommandRegistry
    from retinue.tools.host import ToolHost

CardSpec = ToolCard | str | type[ToolCard]
"""How a card is named: an instance or a class in code, a name in a team file."""


def resolve_cards(
    spec: Sequence[CardSpec], available: Mapping[str, type[ToolCard]]
) -> list[ToolCard]:
    """Card instances for `spec`, in order: names are looked up in `available`.

    Every unknown name is reported in one error that also lists the available names, so a
    typo in a team file is fixed in one go.
    """
    unknown = [item for item in spec if isinstance(item, str) and item not in available]
    if unknown:
        names = ", ".join(sorted(available)) or "none installed"
        missing = ", ".join(repr(name) for name in unknown)
        raise UnknownToolCardError(f"unknown tool card {missing}; available: {names}")
    cards: list[ToolCard] = []
    for item in spec:
        if isinstance(item, ToolCard):
            cards.append(item)
        elif isinstance(item, str):
            cards.append(available[item]())
        elif isinstance(item, type) and issubclass(item, ToolCard):
            cards.append(item())
        else:
            raise TypeError(
                f"a tool card is given as a ToolCard, a ToolCard class or a card name, "
                f"not {type(item).__name__}: {item!r}"
            )
    return cards


def with_default_cards(
    configured: Sequence[ToolCard], default_classes: Sequence[type[ToolCard]]
) -> list[ToolCard]:
    """The installed defaults (instantiated) followed by `configured`, as a new list.

    A default whose name is already configured is left out: the configured card wins and
    keeps its position. `configured` itself is never mutated. The same card configured twice
    is a `DuplicateToolCardError` here, where an agent is built, rather than at its start.
    """
    _check_unique_names(configured)
    taken = {card_name(card) for card in configured}
    defaults: list[ToolCard] = []
    for cls in default_classes:
        name = card_name(cls)
        if name not in taken:
            taken.add(name)
            defaults.append(cls())
    return [*defaults, *configured]


class ToolFactory:
    """Binds one agent's cards and serves each channel, collected once and cached.

    The factory holds the bound copies, never the configured cards, so nothing it hands out
    can act for another agent.
    """

    def __init__(self, cards: Sequence[ToolCard], host: ToolHost) -> None:
        _check_unique_names(cards)
        self._host = host
        bound: list[ToolCard] = []
        try:
            for card in cards:
                bound.append(card.bind(host))
        except BaseException:
            for card in reversed(bound):
                with contextlib.suppress(Exception):  # keep the original error in view
                    card.unbind()
            raise
        self._cards = tuple(bound)
        self._tools: tuple[Tool[Any] | Callable[..., Any], ...] | None = None
        self._toolsets: tuple[AbstractToolset[Any], ...] | None = None
        self._gates: Mapping[str, ToolCard] | None = None
        self._system_prompts: tuple[str | Callable[[], str], ...] | None = None
        self._context_states: Mapping[str, ContextProvider] | None = None
        self._updater: ContextUpdater | None = None
        self._registry: CommandRegistry | None = None
        self._extra_commands: tuple[Callable[..., Any], ...] = ()

    @property
    def cards(self) -> tuple[ToolCard, ...]:
        """The bound copies, in configured order."""
        return self._cards

    def get_tools(self) -> Sequence[Tool[Any] | Callable[..., Any]]:
        """TOOL_CALL: every card's tools, for the ReactAgent build."""
        if self._tools is None:
            self._tools = tuple(tool for card in self._cards for tool in card.get_tools())
        return self._tools

    def get_toolsets(self) -> Sequence[AbstractToolset[Any]]:
        """TOOL_CALL: every card's toolsets, for the ReactAgent build."""
        if self._toolsets is None:
            self._toolsets = tuple(ts for card in self._cards for ts in card.get_toolsets())
        return self._toolsets

    def get_tool_gates(self) -> Mapping[str, ToolCard]:
        """TOOL_CALL: the card to ask (`tool_offered`) for each tool a card may hold back."""
        if self._gates is None:
            gates: dict[str, ToolCard] = {}
            for card in self._cards:
                if type(card).tool_offered is ToolCard.tool_offered:
                    continue
                for tool in card.get_tools():
                    gates[_tool_name(tool)] = card
            self._gates = MappingProxyType(gates)
        return self._gates

    def get_system_prompts(self) -> Sequence[str | Callable[[], str]]:
        """SYSTEM_PROMPT: every card's prompts, registered once into the frozen system block."""
        if self._system_prompts is None:
            self._system_prompts = tuple(
                prompt for card in self._cards for prompt in card.get_system_prompts()
            )
        return self._system_prompts

    def get_context_states(self) -> Mapping[str, ContextProvider]:
        """LLM_CONTEXT: every card's named providers; a name used twice is an error."""
        if self._context_states is None:
            providers: dict[str, ContextProvider] = {}
            owners: dict[str, str] = {}
            for card in self._cards:
                owner = card_name(card)
                for key, provider in card.get_context_states().items():
                    if key in owners:
                        raise DuplicateContextProviderError(
                            f"context provider {key!r} is registered by both tool card "
                            f"{owners[key]!r} and tool card {owner!r}; section names must "
                            "be unique within an agent"
                        )
                    owners[key] = owner
                    providers[key] = provider
            self._context_states = MappingProxyType(providers)
        return self._context_states

    def get_context_updater(
        self, state_getter: Callable[[], ToolState] | None = None
    ) -> ContextUpdater:
        """The agent's one `ContextUpdater`, built on the first call.

        `state_getter` returns the agent's `ToolState` slot; by default it reads
        `host.state.tool_state` afresh on every call, never a held reference.
        """
        if self._updater is None:
            getter = state_getter if state_getter is not None else self._host_tool_state
            self._updater = ContextUpdater(self.get_context_states(), getter)
        return self._updater

    def get_command_registry(
        self, extra_commands: Sequence[Callable[..., Any]] = ()
    ) -> CommandRegistry:
        """COMMAND: one registry of every card's commands plus `extra_commands` (built-ins).

        Built on the first call; asking again with different extras is an error rather than
        a silently ignored argument.
        """
        extras = tuple(extra_commands)
        if self._registry is None:
            from retinue.tools.commands import CommandRegistry

            registry = CommandRegistry()
            for card in self._cards:
                owner = card_name(card)
                for command in card.get_commands():
                    registry.register(command, owner=owner)
            for command in extras:
                registry.register(command)
            self._registry = registry
            self._extra_commands = extras
        elif extras and extras != self._extra_commands:
            raise RuntimeError(
                "the command registry was already built with other extra commands; "
                "build it once, with every built-in, in on_start"
            )
        return self._registry

    def close(self) -> None:
        """Unbind every card (the agent is stopping), last bound first."""
        for card in reversed(self._cards):
            card.unbind()

    def _host_tool_state(self) -> ToolState:
        return tool_state_of(self._host.state)


def _tool_name(tool: Tool[Any] | Callable[..., Any]) -> str:
    name = getattr(tool, "name", None)  # a pydantic-ai `Tool`
    return name if isinstance(name, str) else str(getattr(tool, "__name__", tool))


def _check_unique_names(cards: Sequence[ToolCard]) -> None:
    seen: dict[str, ToolCard] = {}
    for card in cards:
        name = card.card_key()
        if name in seen:
            raise DuplicateToolCardError(
                f"tool card {name!r} is given twice ({type(seen[name]).__qualname__} and "
                f"{type(card).__qualname__}); an agent holds each card once"
            )
        seen[name] = card
