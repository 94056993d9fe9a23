"""Role keys plugins add to team files: a kind of member named by one key of a role's table.

A plugin whose members are of an agent class of its own (a remote A2A agent, say) may give
team files a shorthand for them: `a2a = "http://..."` in a role's table makes the role's
members of that class, with the key's value as one field of their config. The kernel knows
no such key by name; it asks the installed plugins (`retinue_role_kinds`), and refuses a
key two plugins claim, or one that is already a role key.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import pluggy

from retinue.plugins.collect import plugin_hooks
from retinue.plugins.manager import PluginError

ROLE_KINDS_HOOK = "retinue_role_kinds"
_KEY = re.compile(r"[a-z][a-z0-9_]*")


@dataclass(frozen=True, slots=True)
class RoleKind:
    """`key = VALUE` in a role's table: its members are `agent_class` (a `module:Class`
    path, imported when the team starts), with VALUE as their config's `field`."""

    key: str
    agent_class: str
    field: str
    description: str = ""


def collect_role_kinds(pm: pluggy.PluginManager, taken: frozenset[str]) -> dict[str, RoleKind]:
    """Every installed role kind by its key; a `PluginError` naming the plugin for one that
    is malformed, claims a key in `taken` (the role keys the kernel knows), or another's."""
    kinds: dict[str, RoleKind] = {}
    owners: dict[str, str] = {}
    for source in plugin_hooks(pm, ROLE_KINDS_HOOK):
        for kind in source.call():
            if not isinstance(kind, RoleKind) or not _KEY.fullmatch(kind.key):
                raise PluginError(
                    f"{source.label} returned {kind!r} from {ROLE_KINDS_HOOK}; expected "
                    "RoleKind objects with lowercase keys"
                )
            if kind.key in taken:
                raise PluginError(f"{source.label}: role key {kind.key!r} is already a role key")
            if kind.key in kinds and kinds[kind.key] != kind:
                raise PluginError(
                    f"role key {kind.key!r} is provided twice: by {owners[kind.key]} and "
                    f"{source.label}"
                )
            kinds[kind.key] = kind
            owners.setdefault(kind.key, source.label)
    return dict(sorted(kinds.items()))
