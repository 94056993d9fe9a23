"""The team's state as an AG-UI client keeps it: one JSON document, and patches to it.

The document is what the page's roster, cards and panels show, keyed so that a change is a
small patch: `members` by name (each the page's roster row, usage included), `approvals`
by card key (the calls waiting for the person), `panels` by name (each plugin's view: the
planning board, the workspace's files), and the team's name. `diff` turns two documents
into the RFC 6902 operations (`add`, `remove`, `replace`) that make one into the other, as
`STATE_DELTA` carries them; lists are replaced whole (a board's rows are a table, not a
sequence anyone patches in place).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from retinue_web.feed import TeamFeed


class TeamState:
    """The state document of one team, read from its feed's fold.

    A panel's view is read again only when the record changed what it folds (`changed`):
    the workspace's panel lists files, which is not free.
    """

    def __init__(self, feed: TeamFeed) -> None:
        self.feed = feed
        self._panels: dict[str, Any] = {}

    def now(self, changed: set[str] | None = None) -> dict[str, Any]:
        """The document as the fold holds it now; `changed`: the panels to read again
        (None: all of them)."""
        with self.feed.locked():
            fold = self.feed.fold
            members = {m.name: fold.member_json(m) for m in fold.members.values()}
            approvals = {card["key"]: card for card in fold.pending.json()}
            team = {"id": fold.team_id, "name": fold.name or fold.team_id[:8]}
            for name, panel in fold.panels.items():
                if changed is None or name in changed or name not in self._panels:
                    self._panels[name] = _panel_view(panel)
        return {
            "team": team,
            "members": members,
            "approvals": approvals,
            "panels": dict(self._panels),
        }


def _panel_view(panel: Any) -> dict[str, Any]:
    """A panel's view with its title; a panel that fails says so instead of its table."""
    try:
        view: dict[str, Any] = panel.view().model_dump()
    except Exception as exc:  # noqa: BLE001 - a plugin's panel failed: the state goes on
        view = {"columns": [], "rows": [], "note": f"failed: {type(exc).__name__}: {exc}"}
    return {"title": panel.title, **view}


def pointer(path: str, key: str) -> str:
    """`path` with `key` appended as a JSON Pointer token (RFC 6901: `~` and `/` escaped)."""
    return f"{path}/{key.replace('~', '~0').replace('/', '~1')}"


def diff(old: Any, new: Any, path: str = "") -> list[dict[str, Any]]:
    """The JSON Patch operations that turn `old` into `new` (objects compared key by key)."""
    if isinstance(old, dict) and isinstance(new, dict):
        ops: list[dict[str, Any]] = []
        for key in old:
            if key not in new:
                ops.append({"op": "remove", "path": pointer(path, key)})
        for key, value in new.items():
            if key not in old:
                ops.append({"op": "add", "path": pointer(path, key), "value": value})
            else:
                ops.extend(diff(old[key], value, pointer(path, key)))
        return ops
    if old == new and type(old) is type(new):
        return []
    return [{"op": "replace", "path": path, "value": new}]
