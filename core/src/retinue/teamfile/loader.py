"""Reading a team file: TOML in, a checked `TeamFile` out, or one line per problem.

The TOML shape is the card's, flattened for people: a role's table holds the card's own
keys (`description`, `skills`, `agent_class`, `routes_to`, `metadata`) next to its config's
(`prompt`, `model`, `tools`, `run_usage_limits`, ...), with `model`, `runtime` and
`compaction` short for `model_cfg`, `runtime_cfg` and `compaction_cfg`. A role's table may
also be a card's own dump (with a `config` table). Tools are card names, or tables naming a
card (`card = "workspace"`) with its settings, looked up among the installed cards.

Every problem in a file is reported at once, each as `file: key.path: what` (with the line
for a TOML syntax error, and the line of the key where it can be found), never as a
traceback: a team file is written by a person, who fixes it in one go. A line echoes at
most about 200 characters of any key or value (a huge one is shortened, its length given),
and values nest at most `MAX_DEPTH` levels (deeper ones cannot be read, or recorded).
"""

from __future__ import annotations

import difflib
import sys
import tomllib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from retinue.actors.loader import add_import_folders
from retinue.llm.config import ModelConfig
from retinue.llm.errors import ConfigError as LlmConfigError
from retinue.plugins.role_kinds import RoleKind
from retinue.teamfile.locate import KeyLocator
from retinue.teamfile.role_tables import (
    CARD_FIELDS,
    FIELD_TO_KEY,
    normalize,
)
from retinue.teamfile.schema import DEFAULT_PERSON, TeamFile, member_name, team_problems
from retinue.validation import (
    MAX_LINE_CHARS,
    ConfigError,
    ConfigProblem,
    dotted_path,
    shorten,
)

MAX_DEPTH = 32
"""How deep a team file's tables and arrays may nest (a real one needs about six)."""


class TeamFileError(ValueError):
    """A team file cannot be used; `str(exc)` has one line per problem.

    `problems` holds the lines, each `key.path: what` (the file's name is in `source`, and
    at the head of every line of the message).
    """

    def __init__(self, source: str, problems: Sequence[str]) -> None:
        self.source = source
        self.problems: list[str] = [shorten(problem, MAX_LINE_CHARS) for problem in problems]
        super().__init__("\n".join(f"{source}: {problem}" for problem in self.problems))


def load_team_file(path: str | Path, *, plugin_manager: Any = None) -> TeamFile:
    """The team a TOML file describes; a `TeamFileError` listing every problem otherwise.

    Card names are looked up among the cards of `plugin_manager` (installed plugins when
    None). The scripted models and agent classes a file names may live next to it: they are
    imported from its folder, searched after the installed packages (which a module there
    never shadows), and the spec keeps that folder (`TeamFile.folder`) for a later start.
    """
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise TeamFileError(str(path), [f"cannot read the file: {_reason(exc)}"]) from None
    folder = str(path.resolve().parent)
    return loads_team_file(text, source=str(path), plugin_manager=plugin_manager, folder=folder)


def loads_team_file(
    text: str,
    *,
    source: str = "<team file>",
    plugin_manager: Any = None,
    folder: str | None = None,
) -> TeamFile:
    """As `load_team_file`, from the TOML text itself; `folder` is where its code lives."""
    try:
        raw = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise TeamFileError(source, [f"TOML syntax: {exc}"]) from None
    except RecursionError:  # tomllib reads nested values recursively
        raise TeamFileError(source, [f"(file): values nested too deeply; {_DEPTH_RULE}"]) from None
    too_deep = _too_deep(raw)
    if too_deep is not None:
        raise TeamFileError(source, _render([too_deep], KeyLocator(text)))
    card_classes, role_kinds = _installed(source, plugin_manager)
    if folder is not None:
        add_import_folders([folder])
    data, found = normalize(raw, card_classes, role_kinds)
    flat = _flat_roles(raw)
    problems = [_from_file_view(problem, flat) for problem in found]
    if "folder" in raw:
        problems.append(ConfigProblem(("folder",), "unknown key: the file's own folder is used"))
    data["folder"] = folder
    spec: TeamFile | None = None
    try:
        spec = TeamFile.model_validate(data)
    except ConfigError as exc:
        problems.extend(_from_file_view(p, flat) for p in exc.problems)
        problems.extend(_from_file_view(p, flat) for p in _cross_problems(data))
    problems.extend(_unimportable_models(data))
    if problems:
        raise TeamFileError(source, _render(problems, KeyLocator(text)))
    assert spec is not None
    return spec


def _installed(
    source: str, plugin_manager: Any
) -> tuple[Mapping[str, type[Any]], Mapping[str, RoleKind]]:
    """The installed card classes and role kinds; a plugin's error is the file's one line."""
    from retinue.plugins import (
        PluginError,
        collect_card_classes,
        collect_role_kinds,
        get_plugin_manager,
    )

    try:
        pm = plugin_manager if plugin_manager is not None else get_plugin_manager()
        return collect_card_classes(pm), collect_role_kinds(pm, frozenset(_role_keys()))
    except PluginError as exc:
        raise TeamFileError(source, [f"plugins: {exc}"]) from None


_DEPTH_RULE = f"a team file nests tables and arrays at most {MAX_DEPTH} deep"


def _too_deep(raw: Mapping[str, Any]) -> ConfigProblem | None:
    """The first value nested deeper than `MAX_DEPTH`, found without recursion."""
    pending: list[tuple[tuple[str | int, ...], Any]] = [((), raw)]
    while pending:
        path, value = pending.pop()
        if len(path) > MAX_DEPTH:
            return ConfigProblem(path[:MAX_DEPTH], f"nested too deeply; {_DEPTH_RULE}")
        if isinstance(value, Mapping):
            pending.extend(((*path, key), item) for key, item in value.items())
        elif isinstance(value, list):
            pending.extend(((*path, index), item) for index, item in enumerate(value))
    return None


def _cross_problems(data: Mapping[str, Any]) -> list[ConfigProblem]:
    """How the roles refer to each other, read from data whose cards did not all validate."""
    team = data.get("team")
    team = team if isinstance(team, Mapping) else {}
    roles = data.get("roles")
    if not isinstance(roles, Mapping) or not roles:
        return []  # no roles to check against: that is reported already
    views: dict[str, tuple[object, object, object]] = {}
    for key, card in roles.items():
        config = card.get("config") if isinstance(card, Mapping) else None
        config = config if isinstance(config, Mapping) else {}
        routes = card.get("routes_to") if isinstance(card, Mapping) else None
        views[key] = (config.get("role"), config.get("name"), routes)
    person = team.get("person", DEFAULT_PERSON)
    return team_problems(
        team.get("entry"),
        team.get("start"),
        member_name(person) if isinstance(person, str) and person.strip() else None,
        views,
    )


def _unimportable_models(data: Mapping[str, Any]) -> list[ConfigProblem]:
    """Scripted models whose function cannot be imported, found now rather than mid-run."""
    from retinue.llm.models import import_function

    problems: list[ConfigProblem] = []
    roles = data.get("roles")
    for role, card in (roles if isinstance(roles, Mapping) else {}).items():
        config = card.get("config") if isinstance(card, Mapping) else None
        raw = config.get("model_cfg") if isinstance(config, Mapping) else None
        try:
            model_cfg = ModelConfig.model_validate(raw) if raw is not None else None
        except ConfigError:
            continue  # reported by the model
        if model_cfg is None or model_cfg.provider != "function":
            continue
        paths = {"model": model_cfg.model, "stream_function": model_cfg.stream_function}
        for field, path in paths.items():
            if path is None:
                continue
            try:
                import_function(path)
            except LlmConfigError as exc:
                where: tuple[str, ...] = ("roles", role, "model")
                problems.append(
                    ConfigProblem(where if field == "model" else (*where, field), str(exc))
                )
    return problems


# -- reporting ---------------------------------------------------------------------------------


def _flat_roles(raw: Mapping[str, Any]) -> set[str]:
    """The roles written in the flat shape (not as a card's dump with a `config` table)."""
    roles = raw.get("roles")
    if not isinstance(roles, Mapping):
        return set()
    return {
        key for key, table in roles.items() if isinstance(table, Mapping) and "config" not in table
    }


def _from_file_view(problem: ConfigProblem, flat: set[str]) -> ConfigProblem:
    """A problem's path as the file spells it: `roles.Dev.model`, not `...config.model_cfg`.

    Only for a role written flat; a card's dump is reported with the paths it was written in.
    """
    path = problem.path
    if len(path) >= 3 and path[0] == "roles" and path[1] in flat and path[2] == "config":
        rest = path[3:]
        if rest and isinstance(rest[0], str):
            rest = (FIELD_TO_KEY.get(rest[0], rest[0]), *rest[1:])
        path = (*path[:2], *rest)
    message = problem.message
    if message.startswith("unknown field"):
        message = "unknown key" + message.removeprefix("unknown field")
        if len(path) == 3 and path[0] == "roles" and path[1] in flat and isinstance(path[2], str):
            message = "unknown key" + _did_you_mean(path[2], _role_keys())
    return ConfigProblem(path, message)


def _role_keys() -> list[str]:
    """The keys a role's table takes (for a role of the default agent class)."""
    from retinue.agent.config import AgentConfig

    config_keys = [FIELD_TO_KEY.get(name, name) for name in AgentConfig.model_fields]
    return sorted({*CARD_FIELDS, *config_keys} - {"role"})


def _did_you_mean(key: str, known: Sequence[str]) -> str:
    close = difflib.get_close_matches(key, known, n=1)
    return f"; did you mean {close[0]!r}?" if close else f"; a role takes: {', '.join(known)}"


def _render(problems: Sequence[ConfigProblem], locator: KeyLocator) -> list[str]:
    """`key.path (line N): what`, in the order of the file (the unplaced ones last)."""
    placed: list[tuple[int, str]] = []
    for problem in problems:
        where = dotted_path(shorten(p) if isinstance(p, str) else p for p in problem.path)
        where = where or "(file)"
        line = locator.line_of(problem.path)
        at = f" (line {line})" if line is not None else ""
        order = line if line is not None else sys.maxsize
        placed.append((order, f"{where}{at}: {problem.message}"))
    placed.sort(key=lambda entry: entry[0])
    return list(dict.fromkeys(text for _, text in placed))


def _reason(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.strerror:
        return exc.strerror
    return str(exc)
