"""What the installed plugins give an agent, as plain data (what `retinue plugins` prints).

A card is described from an unbound instance of its class with default settings: what its
channels offer by name (tools, commands with their usage, context sections, system prompt
text). A channel that can only be read by a bound card is described as such rather than
failing the report; so is a card whose class cannot be built with its defaults.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import asdict
from typing import TYPE_CHECKING, Any, TypeVar

import pluggy
from pydantic import BaseModel, ConfigDict, Field

from retinue.agent.config import AgentConfig
from retinue.plugins.collect import (
    CAPABILITIES_HOOK,
    PluginHook,
    PluginInfo,
    capabilities_from,
    cards_by_plugin,
    describe_plugins,
    plugin_hooks,
)
from retinue.plugins.manager import PluginError
from retinue.plugins.role_kinds import ROLE_KINDS_HOOK, RoleKind
from retinue.tools.commands import CommandRegistry

if TYPE_CHECKING:
    from retinue.tools.card import ToolCard

_PROMPT_SHOWN = 200
T = TypeVar("T")


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, defer_build=True)


class ToolInfo(_Frozen):
    """A tool the model may call."""

    name: str
    description: str = ""


class CommandInfo(_Frozen):
    """A slash command an operator may type."""

    name: str
    usage: str = Field(description="How to type it, e.g. `/hire_member <role> [name=…]`.")
    description: str = ""


class CardInfo(_Frozen):
    """One card class: its name, whether every agent gets it, and what it serves."""

    name: str
    card_class: str
    distribution: str | None = Field(default=None, description="Where the card comes from.")
    version: str | None = None
    default: bool = Field(description="Given to every agent that does not configure it.")
    description: str = ""
    settings: dict[str, Any] = Field(
        default_factory=dict, description="The card's settings with their defaults."
    )
    tools: list[ToolInfo] = Field(default_factory=list)
    toolsets: list[str] = Field(default_factory=list, description="Whole toolsets, by class.")
    commands: list[CommandInfo] = Field(default_factory=list)
    context_sections: list[str] = Field(default_factory=list)
    system_prompts: list[str] = Field(
        default_factory=list, description="Text added to the system prompt (shortened)."
    )
    capabilities: list[str] = Field(
        default_factory=list,
        description="The pydantic-ai capabilities its plugin gives an agent carrying the card.",
    )
    problems: list[str] = Field(
        default_factory=list, description="Channels that could not be read without an agent."
    )
    unavailable: list[str] = Field(
        default_factory=list, description="What the card holds back here, and why (a key unset)."
    )


class RoleKindInfo(_Frozen):
    """A role key the plugin adds to team files: `key = VALUE` makes a role's members
    `agent_class`, with VALUE as their config's `field`."""

    key: str
    agent_class: str
    field: str
    description: str = ""


class PluginReport(_Frozen):
    """One plugin: where it comes from, its cards, its hooks, its capabilities and the role
    keys it adds to team files."""

    name: str
    module: str | None
    distribution: str | None
    version: str | None
    hooks: list[str]
    cards: list[CardInfo]
    capabilities: list[str] = Field(
        default_factory=list,
        description="The pydantic-ai capabilities it gives an agent of the default config.",
    )
    role_kinds: list[RoleKindInfo] = Field(default_factory=list)


def describe_installed(pm: pluggy.PluginManager) -> list[PluginReport]:
    """Every active plugin, in registration order, with its cards described in full."""
    cards = {id(plugin): found for plugin, found in cards_by_plugin(pm)}
    plugins = {name: plugin for name, plugin in pm.list_name_plugin() if plugin is not None}
    capability_hooks = {
        pm.get_name(source.plugin) or "": source for source in plugin_hooks(pm, CAPABILITIES_HOOK)
    }
    role_kinds = {
        pm.get_name(source.plugin) or "": [
            RoleKindInfo(**asdict(kind)) for kind in source.call() if isinstance(kind, RoleKind)
        ]
        for source in plugin_hooks(pm, ROLE_KINDS_HOOK)
    }
    reports: list[PluginReport] = []
    for info in describe_plugins(pm):
        hook = capability_hooks.get(info.name)
        reports.append(
            PluginReport(
                name=info.name,
                module=info.module,
                distribution=info.distribution,
                version=info.version,
                hooks=info.hooks,
                cards=[_card(cls, info, hook) for cls in cards.get(id(plugins.get(info.name)), [])],
                capabilities=_capability_names(hook, AgentConfig()),
                role_kinds=role_kinds.get(info.name, []),
            )
        )
    return reports


def _card(cls: type[ToolCard], plugin: PluginInfo, hook: PluginHook | None) -> CardInfo:
    """A card as its plugin gives it: where it comes from, and the capabilities an agent
    carrying it gets from that plugin."""
    return describe_card(cls).model_copy(
        update={
            "distribution": plugin.distribution,
            "version": plugin.version,
            "capabilities": _capability_names(hook, AgentConfig(tools=[cls.name])),
        }
    )


def _capability_names(hook: PluginHook | None, config: AgentConfig) -> list[str]:
    """The classes of the capabilities one plugin gives an agent of `config`, by name."""
    if hook is None:
        return []
    try:
        found = capabilities_from([(hook.label, hook)], config)
    except PluginError as exc:
        return [f"(failed: {exc})"]
    return [type(capability).__name__ for _, capability in found]


def describe_card(cls: type[ToolCard]) -> CardInfo:
    """What one card class offers, read from an unbound card with default settings."""
    from retinue.actors.loader import qualified_name

    doc = inspect.getdoc(cls) or ""
    base = {
        "name": cls.name,
        "card_class": qualified_name(cls),
        "default": bool(cls.default),
        "description": doc.strip().splitlines()[0] if doc.strip() else "",
    }
    try:
        card = cls()
    # a card with required settings: describe the class alone
    except Exception as exc:  # noqa: BLE001
        return CardInfo(**base, problems=[f"cannot be built with its defaults: {_one_line(exc)}"])
    problems: list[str] = []
    return CardInfo(
        **base,
        settings=card.model_dump(mode="json"),
        tools=_read(problems, "tools", lambda: [_tool(tool) for tool in card.get_tools()]),
        toolsets=_read(
            problems, "toolsets", lambda: [type(ts).__name__ for ts in card.get_toolsets()]
        ),
        commands=_read(problems, "commands", lambda: _commands(card)),
        context_sections=_read(problems, "context", lambda: list(card.get_context_states())),
        system_prompts=_read(problems, "system prompt", lambda: _prompts(card)),
        unavailable=_read(problems, "unavailable", lambda: list(card.unavailable())),
        problems=problems,
    )


def _read(problems: list[str], channel: str, read: Callable[[], list[T]]) -> list[T]:
    """What `read` lists, or nothing and a problem: a card's method may need its agent."""
    try:
        return read()
    except Exception as exc:  # noqa: BLE001 - the report goes on with the other channels and cards
        problems.append(f"{channel}: {type(exc).__name__}: {exc}")
        return []


def _tool(tool: Any) -> ToolInfo:
    name = getattr(tool, "name", None) or getattr(tool, "__name__", type(tool).__name__)
    description = getattr(tool, "description", None) or inspect.getdoc(tool) or ""
    first = description.strip().splitlines()[0] if description.strip() else ""
    return ToolInfo(name=str(name), description=first)


def _commands(card: ToolCard) -> list[CommandInfo]:
    registry = CommandRegistry()
    for command in card.get_commands():
        registry.register(command, owner=card.name)
    return [
        CommandInfo(name=d.name, usage=d.usage, description=d.description)
        for d in registry.descriptors()
    ]


def _prompts(card: ToolCard) -> list[str]:
    texts: list[str] = []
    for prompt in card.get_system_prompts():
        text = prompt if isinstance(prompt, str) else f"(computed by {_callable_name(prompt)})"
        texts.append(text if len(text) <= _PROMPT_SHOWN else text[: _PROMPT_SHOWN - 1] + "…")
    return texts


def _callable_name(fn: Callable[[], str]) -> str:
    return getattr(fn, "__qualname__", None) or type(fn).__name__


def _one_line(exc: Exception) -> str:
    """A card's refusal of its defaults as one line: each field refused and why."""
    from pydantic import ValidationError

    from retinue.validation import ConfigError, validation_problems

    if isinstance(exc, ValidationError):
        return "; ".join(problem.render() for problem in validation_problems(exc))
    if isinstance(exc, ConfigError):
        return "; ".join(problem.render() for problem in exc.problems)
    return " ".join(str(exc).split())
