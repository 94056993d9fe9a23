"""How a context-update section reads: full snapshots and deltas, as plain Markdown.

Pure functions of snapshots, so the wording can be tested without any agent. A `FrozenMap`
is rendered once and the text shared; a delta between two versions of one `FrozenMap` line
looks only at the keys that changed.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterable, Mapping
from typing import Any

from retinue.frozen import FrozenMap

NEW = "new"
UPDATED = "updated"
CHANGED = "changed"
UNAVAILABLE = "unavailable"
AVAILABLE_AGAIN = "available again"
REMOVED = "removed"


def section(name: str, body: str, label: str | None = None) -> str:
    """A section headed by its provider's name, with a label saying what kind it is."""
    heading = f"### {name}" if label is None else f"### {name} ({label})"
    return f"{heading}\n{body}"


def render_full(snapshot: str | Mapping[str, str]) -> str:
    """The whole state of one provider."""
    if isinstance(snapshot, str):
        return snapshot if snapshot.strip() else "(empty)"
    if isinstance(snapshot, FrozenMap):
        text: str = snapshot.memo("retinue.render_full", _render_items)
        return text
    return _render_items(snapshot)


def render_delta(
    old: str | Mapping[str, str], new: str | Mapping[str, str]
) -> tuple[str, str] | None:
    """`(label, body)` saying how `new` differs from `old`, or None when it does not.

    Keyed items are listed as added, changed and removed; a text (or a change of shape) is
    restated whole, which a model reads more reliably than a line diff.
    """
    if old is new:
        return None
    if isinstance(old, str) or isinstance(new, str):
        return None if old == new else (UPDATED, render_full(new))
    keys = new.changed_since(old) if isinstance(new, FrozenMap) else None
    if keys is None and isinstance(new, FrozenMap):
        noted: tuple[weakref.ref[Any], tuple[str, ...]] | None = new.memo(_NOTED, _nothing_noted)
        if noted is not None and noted[0]() is old:
            keys = noted[1]
    body = _item_delta(old, new, keys if keys is not None else _changed_keys(old, new))
    return None if body is None else (CHANGED, body)


_NOTED = "retinue.changes_noted"
"""Memo key of a map that knows the keys it changed from one other map (`note_changes`)."""


def _nothing_noted(_: object) -> tuple[weakref.ref[Any], tuple[str, ...]] | None:
    return None


def note_changes(new: FrozenMap[str, str], old: FrozenMap[str, str], keys: list[str]) -> None:
    """Record on `new` that it differs from `old` at `keys` only, for `render_delta`.

    `old` is held weakly: a snapshot must not keep every earlier one alive.
    """
    new.memo(_NOTED, lambda _: (weakref.ref(old), tuple(keys)))


def _changed_keys(old: Mapping[str, str], new: Mapping[str, str]) -> list[str]:
    """The keys whose items differ, in `new`'s order then `old`'s: for unrelated mappings."""
    frozen = new if isinstance(new, FrozenMap) else FrozenMap(new)
    return frozen.differing_keys(old)


def _render_items(items: Mapping[str, str]) -> str:
    if not items:
        return "(none)"
    return "\n".join(_item(key, value) for key, value in items.items())


def _item_delta(old: Mapping[str, str], new: Mapping[str, str], keys: Iterable[str]) -> str | None:
    """The items at `keys` that were added, changed or removed; None when none was."""
    added: list[str] = []
    changed: list[str] = []
    removed: list[str] = []
    for key in dict.fromkeys(keys):
        before, after = old.get(key), new.get(key)
        if before == after:
            continue
        if before is None:
            added.append(_item(key, str(after)))
        elif after is None:
            removed.append(f"- {key}")
        else:
            changed.append(_item(key, after))
    lines: list[str] = []
    for title, items in (("Added:", added), ("Changed:", changed), ("Removed:", removed)):
        if items:
            lines.append(title)
            lines.extend(items)
    return "\n".join(lines) if lines else None


def _item(key: str, value: str) -> str:
    if not value:
        return f"- {key}"
    first, *rest = value.splitlines() or [""]
    return "\n".join([f"- {key}: {first}", *(f"  {line}" for line in rest)])
