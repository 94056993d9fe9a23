"""A `[team]` list that every role gets after its own: `approve`, `checks`.

Both keys work alike: the team's items are checked once at their place in the file and added
to each role's config after the role's own (an item a role has already is not added twice);
each role's own items are checked at theirs. What "checked" means is the key's own.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from retinue.validation import ConfigProblem

#: The problems of a list of items found at a place in the file (each item's path ends
#: with its index); items of a malformed shape are the config's to report, not these.
Check = Callable[[tuple[str, ...], list[Any]], list[ConfigProblem]]


def apply_team_list(
    data: dict[str, Any], key: str, check: Check, usable: Callable[[Any], bool]
) -> list[ConfigProblem]:
    """Add `[team] key` to each role's config `key` in `data`; the problems of every item.
    A team item is added only when `usable` and without a problem of its own."""
    team = data.get("team")
    items = _listed(team.get(key) if isinstance(team, Mapping) else None)
    problems = check(("team", key), items)
    failed = {problem.path[-1] for problem in problems}
    shared = [item for index, item in enumerate(items) if index not in failed and usable(item)]
    roles = data.get("roles")
    for role, card in (roles if isinstance(roles, Mapping) else {}).items():
        config = card.get("config") if isinstance(card, Mapping) else None
        if not isinstance(config, dict):
            continue
        own = config.get(key, [])
        problems.extend(check(("roles", role, "config", key), _listed(own)))
        if shared and isinstance(own, list):
            config[key] = [*own, *(item for item in shared if item not in own)]
    return problems


def _listed(items: Any) -> list[Any]:
    return items if isinstance(items, list) else []
