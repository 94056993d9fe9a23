"""A team file's `checks`: the team's for every role, each path imported now.

`[team] checks = [...]` applies to every role, after the role's own `checks`. A path that
does not import, or names something that is not a function, is one problem at its place in
the file, found by `retinue check` rather than when the role is hired; a path of the wrong
shape is the config's to report (`retinue.agent.output_checks.check_path`).
"""

from __future__ import annotations

from typing import Any

from retinue.llm.config import parse_function_path
from retinue.llm.models import import_function
from retinue.teamfile.team_lists import apply_team_list
from retinue.validation import ConfigError, ConfigProblem


def apply_team_checks(data: dict[str, Any]) -> list[ConfigProblem]:
    """Add the team's checks to each role's config in `data`; the problems of every path."""
    return apply_team_list(data, "checks", _unimportable, _well_formed)


def _well_formed(path: Any) -> bool:
    if not isinstance(path, str):
        return False
    try:
        parse_function_path(path)
    except ValueError:
        return False
    return True


def _unimportable(where: tuple[str, ...], paths: list[Any]) -> list[ConfigProblem]:
    problems = []
    for index, path in enumerate(paths):
        if not _well_formed(path):
            continue  # the config's own check says what is wrong with it
        try:
            import_function(path)
        except ConfigError as exc:
            problems.append(ConfigProblem((*where, index), str(exc)))
    return problems
