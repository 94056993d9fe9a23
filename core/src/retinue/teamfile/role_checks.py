"""A team file's `checks`: the team's for every role, each path imported now.

`[team] checks = [...]` applies to every role, after the role's own `checks`. A path that
does not import, or names something that is not a function, is one problem at its place in
the file, found by `retinue check` rather than when the role is hired; a path of the wrong
shape is the config's to report (`retinue.agent.output_checks.check_path`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from retinue.llm.config import parse_function_path
from retinue.llm.models import import_function
from retinue.validation import ConfigError, ConfigProblem


def apply_team_checks(data: dict[str, Any]) -> list[ConfigProblem]:
    """Add the team's checks to each role's config in `data`; the problems of every path."""
    team = data.get("team")
    team_checks = team.get("checks", []) if isinstance(team, Mapping) else []
    problems = _unimportable(("team", "checks"), team_checks)
    failed = {problem.path[-1] for problem in problems}
    valid = [
        path
        for index, path in enumerate(_paths(team_checks))
        if index not in failed and _well_formed(path)
    ]
    roles = data.get("roles")
    for role, card in (roles if isinstance(roles, Mapping) else {}).items():
        config = card.get("config") if isinstance(card, Mapping) else None
        if not isinstance(config, dict):
            continue
        own = config.get("checks", [])
        problems.extend(_unimportable(("roles", role, "config", "checks"), own))
        if valid and isinstance(own, list):
            config["checks"] = [*own, *(path for path in valid if path not in own)]
    return problems


def _paths(paths: Any) -> list[Any]:
    return paths if isinstance(paths, list) else []


def _well_formed(path: Any) -> bool:
    if not isinstance(path, str):
        return False
    try:
        parse_function_path(path)
    except ValueError:
        return False
    return True


def _unimportable(where: tuple[str, ...], paths: Any) -> list[ConfigProblem]:
    problems = []
    for index, path in enumerate(_paths(paths)):
        if not _well_formed(path):
            continue  # the config's own check says what is wrong with it
        try:
            import_function(path)
        except ConfigError as exc:
            problems.append(ConfigProblem((*where, index), str(exc)))
    return problems
