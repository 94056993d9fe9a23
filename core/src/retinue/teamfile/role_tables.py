"""A team file's roles in the TOML shape, turned into `AgentCard` data (the dump form).

A role's table holds the card's own keys next to its config's, with short keys for some
config fields (`ALIASES`); a plugin's role key (`a2a = URL`) names the agent class and fills
one config field; tools are card names or tables naming a card, looked up among the
installed cards. Problems are collected, never raised: the loader reports them all at once.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from typing import Any

from retinue.actors.loader import qualified_name
from retinue.agent.config import CARD_CLASS_KEY, CARD_KEY
from retinue.plugins.role_kinds import RoleKind
from retinue.team.card import AgentCard
from retinue.teamfile.approval_rules import apply_team_rules
from retinue.teamfile.card_sources import missing_card_hint
from retinue.teamfile.role_checks import apply_team_checks
from retinue.teamfile.schema import member_name
from retinue.validation import ConfigProblem, shown

ALIASES: Mapping[str, str] = {
    "model": "model_cfg",
    "runtime": "runtime_cfg",
    "compaction": "compaction_cfg",
}
"""Short team-file keys for `AgentConfig` fields."""
FIELD_TO_KEY = {field: key for key, field in ALIASES.items()}
CARD_FIELDS = frozenset(AgentCard.model_fields) - {"config"}
"""A role's keys that belong to the card rather than to its config."""
DEFAULT_AGENT_CLASS = "retinue.BaseAgent"
_REPORTED = "(reported)"  # stands in for a tool already reported, a name the config takes


def normalize(
    raw: Mapping[str, Any],
    card_classes: Mapping[str, type[Any]],
    role_kinds: Mapping[str, RoleKind] | None = None,
) -> tuple[dict[str, Any], list[ConfigProblem]]:
    """The `TeamFile` data for a file's tables, and the problems found on the way.

    An unknown card is reported here and stood in for, so the model reports nothing more
    about it; what is not even a table is left as it is for the model to report.
    """
    data = dict(raw)
    problems: list[ConfigProblem] = []
    team = raw.get("team", {})
    default_model = team.get("model") if isinstance(team, Mapping) else None
    roles = raw.get("roles", {})  # none: the team's own check says a role is needed
    if not isinstance(roles, Mapping):
        return data, problems  # the model says what `roles` should be
    data["roles"] = {}
    for role, table in roles.items():
        if not isinstance(table, Mapping):
            data["roles"][role] = table  # the model says a role is a table
            continue
        if "config" in table:  # a card's own dump
            card = {"agent_class": DEFAULT_AGENT_CLASS, **table}
            config = card["config"]
            if isinstance(config, Mapping) and "model_cfg" not in config and default_model:
                card["config"] = {**config, "model_cfg": default_model}
            data["roles"][role] = card
            continue
        card, found = _card_data(role, table, default_model, card_classes, role_kinds or {})
        problems.extend(found)
        data["roles"][role] = card
    problems.extend(apply_team_rules(data, card_classes))
    problems.extend(apply_team_checks(data))
    return data, problems


def _card_data(
    role: str,
    table: Mapping[str, Any],
    default_model: Any,
    card_classes: Mapping[str, type[Any]],
    role_kinds: Mapping[str, RoleKind],
) -> tuple[dict[str, Any], list[ConfigProblem]]:
    """A role's flat table as `AgentCard` data: card keys kept, the rest its config; a
    plugin's role key (`a2a = URL`) names the agent class and fills one config field."""
    problems: list[ConfigProblem] = []
    card: dict[str, Any] = {"agent_class": DEFAULT_AGENT_CLASS}
    config: dict[str, Any] = {"role": role, "name": member_name(role)}
    for key, value in table.items():
        if key == "role":
            problems.append(
                ConfigProblem(("roles", role, key), "the role is the table's name; drop this key")
            )
        elif key in CARD_FIELDS:
            card[key] = value
        elif key in role_kinds:
            kind = role_kinds[key]
            if "agent_class" in table:  # which one is meant is the person's to say
                problems.append(
                    ConfigProblem(("roles", role, key), f"{key} names the agent class: drop one")
                )
                continue
            card["agent_class"] = kind.agent_class
            config[kind.field] = value
        else:
            field = ALIASES.get(key, key)
            if field in config and key != "name":
                problems.append(
                    ConfigProblem(("roles", role, key), f"given twice, also as {field!r}")
                )
            config[field] = value
    if "name" in table and isinstance(table["name"], str):
        config["name"] = member_name(table["name"])
    if "model_cfg" not in config and default_model is not None:
        config["model_cfg"] = default_model
    if isinstance(config.get("prompt"), str):
        config["prompt"] = {"template": config["prompt"]}
    if "tools" in config:
        config["tools"], found = _tools(role, config["tools"], card_classes)
        problems.extend(found)
    card["config"] = config
    return card, problems


def _tools(
    role: str, tools: Any, card_classes: Mapping[str, type[Any]]
) -> tuple[Any, list[ConfigProblem]]:
    """Card names checked against the installed cards; a card's table given its class."""
    if not isinstance(tools, list):
        return tools, []  # the model names the type expected
    problems: list[ConfigProblem] = []
    resolved: list[Any] = []
    for index, item in enumerate(tools):
        where = ("roles", role, "tools", index)
        name = item.get(CARD_KEY) if isinstance(item, Mapping) else item
        if isinstance(item, Mapping) and CARD_CLASS_KEY in item:
            resolved.append(item)  # saved with its class: read as saved
            continue
        if not isinstance(name, str):
            problems.append(
                ConfigProblem(
                    where,
                    "a tool is a card name or a table with `card = NAME` and its settings, "
                    f"got {shown(item)}",
                )
            )
            resolved.append(_REPORTED)  # keeps the next tools' indices
            continue
        cls = card_classes.get(name)
        if cls is None:
            problems.append(ConfigProblem(where, unknown_card(name, card_classes)))
            resolved.append(_REPORTED)
            continue
        if isinstance(item, Mapping):
            resolved.append({**item, CARD_CLASS_KEY: qualified_name(cls)})
        else:
            resolved.append(name)
    return resolved, problems


def unknown_card(name: str, card_classes: Mapping[str, type[Any]]) -> str:
    hint = missing_card_hint(name)
    if hint is not None:
        return f"unknown card {name!r}: {hint}"
    installed = ", ".join(card_classes) or "none"
    close = difflib.get_close_matches(name, list(card_classes), n=1)
    hint = f"; did you mean {close[0]!r}?" if close else ";"
    return f"unknown card {shown(name)}{hint} installed cards: {installed}"
