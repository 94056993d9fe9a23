"""The hooks a retinue plugin may implement.

Every tool card is a plugin: the kernel knows no card by name, it asks the installed plugins
for their card classes and capabilities through these hooks. Plugins return *classes* (and
capability objects built for one agent); the kernel decides where they go and refuses
conflicting names, so two plugins can never silently shadow each other.

A plugin is a module (usually `<package>.hooks`) holding only `@hookimpl` functions,
announced by an entry point in the `retinue` group::

    [project.entry-points.retinue]
    foo = "retinue_foo.hooks"

The kernel calls every hook below through pluggy, one plugin at a time (a subset hook
caller per plugin), in plugin registration order, so it can tell which distribution
provided what; for that reason they may not be implemented as hook wrappers, and
`tryfirst`/`trylast` do not reorder them. Card classes are collected once per actor system
(and again only if its plugins change); capabilities and turn observers once per agent.

Agent-layer types are named here only for type checkers: this layer sits below the agent
layer and must not import it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

import pluggy

if TYPE_CHECKING:
    import argparse

    from pydantic_ai.capabilities import AbstractCapability

    from retinue.actors.turns import TurnObserver
    from retinue.agent.config import AgentConfig
    from retinue.plugins.role_kinds import RoleKind
    from retinue.team.panels import Panel
    from retinue.tools.card import ToolCard

__all__ = [
    "PROJECT_NAME",
    "hookimpl",
    "hookspec",
    "retinue_capabilities",
    "retinue_cli_commands",
    "retinue_panels",
    "retinue_role_kinds",
    "retinue_session_options",
    "retinue_session_started",
    "retinue_tool_cards",
    "retinue_turn_observers",
]

PROJECT_NAME = "retinue"
"""The pluggy project name, which is also the entry-point group plugins are announced in."""

hookspec = pluggy.HookspecMarker(PROJECT_NAME)
"""Marks a hook specification (kernel use)."""

hookimpl = pluggy.HookimplMarker(PROJECT_NAME)
"""Marks a hook implementation: plugin authors decorate their hook functions with it."""


@hookspec
def retinue_tool_cards() -> Sequence[type[ToolCard]]:  # type: ignore[empty-body]
    """ToolCard classes this plugin provides.

    Return the classes, not instances: an agent instantiates a card with its own settings.
    Each class's `name` is how team files and `config.tools` refer to it, so it must be
    unique across every installed plugin; a class with `default = True` is given to every
    agent that does not already carry it.
    """


@hookspec
def retinue_capabilities(config: AgentConfig) -> Sequence[AbstractCapability[Any]]:  # type: ignore[empty-body]
    """Extra pydantic-ai capabilities for an agent built from this config.

    Called once per agent, while it is created. Use it for behaviour that must run around every
    model request (an audit wrapper, a guard) and has no card channel to ride; return an
    empty sequence for agents the plugin does not concern. The kernel's own cancellation
    capability always runs first and is never returned here.
    """


@hookspec
def retinue_turn_observers(config: AgentConfig) -> Sequence[TurnObserver]:  # type: ignore[empty-body]
    """Observers of the turns of an agent built from this config (tracing, audit, metrics).

    Called once per agent, while it is created, in the thread creating it. A capability sees
    model requests; an observer sees the whole turn around them: it wraps each turn in a
    context of its own (whose trace context the turn's outbound messages carry) and is told
    what the turn reports and whom it hires and fires (see `retinue.actors.turns`). Return
    new objects every call, and an empty sequence for agents the plugin does not watch: an
    agent without observers pays nothing for the hook.
    """


@hookspec
def retinue_cli_commands(add_command: Callable[..., argparse.ArgumentParser]) -> None:
    """Subcommands this plugin adds to the `retinue` command.

    Call `add_command(NAME, help=...)` once per subcommand: it returns that subcommand's
    `argparse.ArgumentParser`. Give it its arguments and `set_defaults(run=FUNCTION)`, where
    `FUNCTION(args: argparse.Namespace) -> int` runs the subcommand and returns its exit
    status. Called each time the command line is parsed, so keep it cheap: import what the
    subcommand needs inside `FUNCTION`. A name the kernel or another plugin already uses is
    refused with a `PluginError` naming both.
    """


@hookspec
def retinue_role_kinds() -> Sequence[RoleKind]:  # type: ignore[empty-body]
    """Role keys this plugin adds to team files, each naming a kind of member.

    Return `retinue.plugins.RoleKind` objects: `RoleKind(key="a2a", agent_class=
    "retinue_a2a:A2AMember", field="url")` makes `a2a = "http://..."` in a role's table mean
    "this role's members are `A2AMember`s, with that URL as their config's `url`". A key
    the kernel's role tables already take, or one another plugin adds, is refused with a
    `PluginError` naming both. Keep the hook cheap: it runs whenever a team file is read.
    """


@hookspec
def retinue_panels() -> Sequence[type[Panel]]:  # type: ignore[empty-body]
    """Panel classes this plugin provides: read-only views of its state in a team.

    Return the classes (`retinue.Panel` subclasses): a frontend makes one per team it shows
    and feeds it that team's record. Each class's `name` must be unique across every
    installed plugin. Keep the hook cheap: it runs whenever a frontend collects panels.
    """


@hookspec
def retinue_session_options(parser: argparse.ArgumentParser) -> None:
    """Options this plugin adds to the commands that run a team for a person.

    Called once for each such command's parser (`retinue run`, `retinue chat`) while the
    command line is parsed: add your options (`parser.add_argument("--web", ...)`) and read
    them in `retinue_session_started`. An option the command already has is refused with a
    `PluginError` naming the plugin; the command works on without it.
    """


@hookspec
def retinue_session_started(team: Any, args: argparse.Namespace) -> Sequence[Callable[[], object]]:  # type: ignore[empty-body]
    """A command started a team for a person: attach to it as `args` (your options) ask.

    `team` is the running team (`system`, `orchestrator`, `human`, `entry`, `send()`), before
    the person's first message. Return the functions to call when the session ends (what to
    close), or an empty sequence when your options were not given. A hook that raises is
    reported in one line naming the plugin, and the session goes on without it.
    """
