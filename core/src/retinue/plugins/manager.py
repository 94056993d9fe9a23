"""Building a plugin manager: finding the installed plugins and checking them.

`get_plugin_manager()` builds a fresh `pluggy.PluginManager` on every call. There is no
module-level manager and nothing happens at import: which plugins are active depends on the
environment variables and arguments of the moment (a test may block one, a CLI flag may turn
autoload off), and a cached global would leak one caller's choice into the next. The agent
layer builds one manager per agent system and keeps it there.

Discovery follows the pytest and tox conventions:

* every entry point in the `retinue` group is loaded unless autoload is off
  (`autoload=False`, or `RETINUE_DISABLE_PLUGIN_AUTOLOAD` set to anything but `0`/`false`);
* entry-point names in `blocked` or in `RETINUE_DISABLED_PLUGINS=a,b` are skipped.

Mistakes are reported when the manager is built, each naming the plugin and the distribution
it came from: a hook implementation whose name matches no hook (usually a typo, which would
otherwise be silently ignored), a `retinue_*` function missing its `@hookimpl`, a plugin that
fails to import (even by raising `SystemExit` or `KeyboardInterrupt`), and one entry-point
name declared by two distributions. Two plugins that provide a card of the same name are
reported when the cards are collected.
"""

from __future__ import annotations

import difflib
import importlib.metadata
import inspect
import os
import warnings
from collections.abc import Iterable, Mapping
from typing import Any

import pluggy

from retinue.plugins import hookspecs
from retinue.plugins.hookspecs import PROJECT_NAME

ENTRY_POINT_GROUP = PROJECT_NAME
"""The entry-point group plugins announce themselves in; the same string as the project."""

DISABLE_AUTOLOAD_ENV = "RETINUE_DISABLE_PLUGIN_AUTOLOAD"
"""Set to anything but empty, `0` or `false` to load no entry point at all."""

DISABLED_PLUGINS_ENV = "RETINUE_DISABLED_PLUGINS"
"""Comma-separated entry-point names to skip, e.g. `planning,workspace`."""

# Hooks the kernel calls one plugin at a time, to know which plugin returned what.
_COLLECTION_HOOKS = frozenset({"retinue_tool_cards", "retinue_capabilities"})
_HOOK_PREFIX = f"{PROJECT_NAME}_"


class PluginError(RuntimeError):
    """Base of the errors about installed plugins; the message says what to fix."""


class PluginLoadError(PluginError):
    """A plugin's entry point could not be imported or registered."""


class PluginConflictError(PluginError):
    """Two distributions declare the same entry-point name, or a name is registered twice."""


class UnknownHookError(PluginError):
    """A plugin implements a hook the kernel does not define (usually a misspelt name)."""


class CardConflictError(PluginError):
    """Two plugins provide a tool card of the same name."""


class PluginWarning(UserWarning):
    """Something about the plugin setup is likely a mistake, but nothing is broken."""


# -- building the manager -------------------------------------------------------------------


def autoload_disabled_by_env(environ: Mapping[str, str] | None = None) -> bool:
    """Whether `RETINUE_DISABLE_PLUGIN_AUTOLOAD` turns entry-point loading off."""
    value = (os.environ if environ is None else environ).get(DISABLE_AUTOLOAD_ENV, "")
    value = value.strip().lower()
    return bool(value) and value not in {"0", "false"}


def blocked_by_env(environ: Mapping[str, str] | None = None) -> frozenset[str]:
    """The entry-point names listed in `RETINUE_DISABLED_PLUGINS`."""
    value = (os.environ if environ is None else environ).get(DISABLED_PLUGINS_ENV, "")
    return frozenset(name.strip() for name in value.split(",") if name.strip())


def get_plugin_manager(
    autoload: bool = True,
    blocked: Iterable[str] = (),
    *,
    plugins: Iterable[object] = (),
) -> pluggy.PluginManager:
    """A new plugin manager with the retinue hooks and the installed plugins.

    `blocked` names entry points to skip, on top of `RETINUE_DISABLED_PLUGINS`; `autoload`
    turns entry-point discovery off, as does `RETINUE_DISABLE_PLUGIN_AUTOLOAD`. `plugins` are
    extra plugin objects (modules holding `@hookimpl` functions) registered after the entry
    points, for applications and tests that provide hooks in code.

    Raises a `PluginError` subclass naming the plugin and its distribution when a plugin
    cannot be loaded or does not keep to the hook contract.
    """
    pm = pluggy.PluginManager(PROJECT_NAME)
    pm.add_hookspecs(hookspecs)
    blocked_in_env = blocked_by_env()
    for name in sorted({*blocked, *blocked_in_env}):
        pm.set_blocked(name)
    if autoload and not autoload_disabled_by_env():
        _load_entry_points(pm)
        _warn_unknown_blocked(blocked_in_env)
    for plugin in plugins:
        try:
            pm.register(plugin)
        except ValueError as exc:  # pluggy: name or object already registered
            raise PluginConflictError(f"cannot register plugin {plugin!r}: {exc}") from exc
        except pluggy.PluginValidationError as exc:
            raise PluginLoadError(f"cannot register plugin {plugin!r}: {exc}") from exc
    validate_plugins(pm)
    return pm


def _warn_unknown_blocked(names: frozenset[str]) -> None:
    """A name in `RETINUE_DISABLED_PLUGINS` that no installed plugin has is likely a typo.

    Skipping nothing is harmless, but the plugin meant to be skipped is still running, so
    the person who set the variable is told which names matched nothing.
    """
    if not names:
        return
    installed = {ep.name for ep in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP)}
    unknown = sorted(names - installed)
    if unknown:
        warnings.warn(
            f"{DISABLED_PLUGINS_ENV} names no installed retinue plugin: "
            f"{', '.join(unknown)} (installed: {', '.join(sorted(installed)) or 'none'})",
            PluginWarning,
            stacklevel=3,
        )


def _load_entry_points(pm: pluggy.PluginManager) -> None:
    candidates: dict[str, list[importlib.metadata.EntryPoint]] = {}
    for entry_point in importlib.metadata.entry_points(group=ENTRY_POINT_GROUP):
        if not pm.is_blocked(entry_point.name):
            candidates.setdefault(entry_point.name, []).append(entry_point)
    for name, found in candidates.items():
        if len(found) > 1:
            sources = " and ".join(distribution_label(ep.dist) for ep in found)
            raise PluginConflictError(
                f"the retinue plugin name {name!r} is declared by {sources}; uninstall one "
                "of them (entry-point names must be unique)"
            )
    try:
        pm.load_setuptools_entrypoints(ENTRY_POINT_GROUP)
    except BaseException as exc:  # a plugin's import may even raise SystemExit: still ours
        raise _load_failure(pm, candidates, exc) from exc


def _load_failure(
    pm: pluggy.PluginManager,
    candidates: Mapping[str, list[importlib.metadata.EntryPoint]],
    exc: BaseException,
) -> PluginError:
    """Name the entry point behind a failed load (pluggy loads them all in one call)."""
    culprit_plugin = getattr(exc, "plugin", None)
    for name, (entry_point, *_) in candidates.items():
        if pm.get_plugin(name) is not None:
            continue
        try:
            loaded = entry_point.load()
        except BaseException:  # noqa: BLE001 - a plugin's import may raise anything, SystemExit too
            pass  # this is the one that fails to import
        else:
            if culprit_plugin is None or loaded is not culprit_plugin:
                continue
        return PluginLoadError(
            f"retinue plugin {name!r} from {distribution_label(entry_point.dist)} could not "
            f"be loaded: {type(exc).__name__}: {exc}. Fix or uninstall it, or skip it with "
            f"{DISABLED_PLUGINS_ENV}={name}"
        )
    return PluginLoadError(f"loading the retinue plugins failed: {type(exc).__name__}: {exc}")


def validate_plugins(pm: pluggy.PluginManager) -> None:
    """Check every registered plugin against the hook contract; raise on the first breach.

    `get_plugin_manager()` calls this; call it again after registering more plugins by hand.
    """
    known = sorted(name for name, caller in hook_callers(pm) if caller.has_spec())
    for name, caller in hook_callers(pm):
        for impl in caller.get_hookimpls():
            if not caller.has_spec() and not impl.optionalhook:
                raise UnknownHookError(_unknown_hook_message(pm, impl.plugin, name, known))
            if name in _COLLECTION_HOOKS and (impl.wrapper or impl.hookwrapper):
                raise PluginError(
                    f"{plugin_label(pm, impl.plugin)} implements {name} as a hook wrapper; "
                    "the kernel calls this hook once per plugin, so it must be a plain "
                    "@hookimpl"
                )
    for _, plugin in pm.list_name_plugin():
        if plugin is None:  # a blocked name
            continue
        for attribute in dir(plugin):
            if not attribute.startswith(_HOOK_PREFIX):
                continue
            value = getattr(plugin, attribute, None)
            if not inspect.isfunction(value) or hasattr(value, f"{PROJECT_NAME}_spec"):
                continue
            if pm.parse_hookimpl_opts(plugin, attribute) is None:
                raise PluginError(
                    f"{plugin_label(pm, plugin)} defines {attribute}() without @hookimpl, so "
                    "retinue would never call it; decorate it with @hookimpl "
                    "(from retinue import hookimpl)"
                )
    pm.check_pending()  # pluggy's own check, after ours has given the clearer message


def hook_callers(pm: pluggy.PluginManager) -> list[tuple[str, pluggy.HookCaller]]:
    """Every hook the manager knows, by name: the specified ones and any a plugin implements."""
    return [
        (name, caller)
        for name, caller in vars(pm.hook).items()
        if not name.startswith("_") and isinstance(caller, pluggy.HookCaller)
    ]


def _unknown_hook_message(
    pm: pluggy.PluginManager, plugin: object, hook: str, known: list[str]
) -> str:
    close = difflib.get_close_matches(hook, known, n=1)
    hint = f"; did you mean {close[0]!r}?" if close else "."
    return (
        f"{plugin_label(pm, plugin)} implements {hook!r}, which is not a retinue hook{hint} "
        f"The hooks are: {', '.join(known)}"
    )


# -- where a plugin came from ---------------------------------------------------------------


def distribution_of(pm: pluggy.PluginManager, plugin: object) -> Any | None:
    """The distribution whose entry point loaded `plugin`; None if registered in code."""
    for candidate, dist in pm.list_plugin_distinfo():
        if candidate is plugin:
            return dist
    return None


def distribution_label(dist: Any) -> str:
    """`distribution <name> <version>`, as errors name it."""
    if dist is None:
        return "an unknown distribution"
    return f"distribution {dist.metadata['Name']} {dist.version}"


def plugin_label(pm: pluggy.PluginManager, plugin: object) -> str:
    """`plugin '<name>' (<where from>)`: what every plugin error starts with."""
    name = pm.get_name(plugin) or repr(plugin)
    dist = distribution_of(pm, plugin)
    source = "registered in code" if dist is None else distribution_label(dist)
    return f"plugin {name!r} ({source})"
