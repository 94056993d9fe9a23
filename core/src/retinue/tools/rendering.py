"""How a context-update section reads: full snapshots and deltas, as plain Markdown.

Pure functions of snapshots, so the wording can be tested without any agent.
"""

from __future__ import annotations

from collections.abc import Mapping

from retinue.tools.state import Snapshot

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


def render_full(snapshot: Snapshot) -> str:
    """The whole state of one provider."""
    if isinstance(snapshot, str):
        return snapshot if snapshot.strip() else "(empty)"
    if not snapshot:
        return "(none)"
    return "\n".join(_item(key, value) for key, value in snapshot.items())


def render_delta(old: Snapshot, new: Snapshot) -> tuple[str, str] | None:
    """`(label, body)` saying how `new` differs from `old`, or None when it does not.

    Keyed items are listed as added, changed and removed; a text (or a change of shape) is
    restated whole, which a model reads more reliably than a line diff.
    """
    if old == new:
        return None
    if isinstance(old, str) or isinstance(new, str):
        return UPDATED, render_full(new)
    return CHANGED, _item_delta(old, new)


def _item_delta(old: Mapping[str, str], new: Mapping[str, str]) -> str:
    added = [_item(k, v) for k, v in new.items() if k not in old]
    changed = [_item(k, v) for k, v in new.items() if k in old and old[k] != v]
    removed = [f"- {k}" for k in old if k not in new]
    lines: list[str] = []
    for title, items in (("Added:", added), ("Changed:", changed), ("Removed:", removed)):
        if items:
            lines.append(title)
            lines.extend(items)
    return "\n".join(lines)


def _item(key: str, value: str) -> str:
    if not value:
        return f"- {key}"
    first, *rest = value.splitlines() or [""]
    return "\n".join([f"- {key}: {first}", *(f"  {line}" for line in rest)])
