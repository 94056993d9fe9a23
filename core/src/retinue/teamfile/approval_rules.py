"""A team file's `approve` rules: the team's for every role, each rule's card checked.

`[team] approve = [...]` applies to every role, after the role's own `approve`; a rule
naming a card that is not installed is one problem at its place in the file (its form is
the config's to check: `retinue.agent.approval_policy`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from retinue.agent.approval_policy import parse_rule
from retinue.validation import ConfigProblem, shown


def apply_team_rules(
    data: dict[str, Any], card_classes: Mapping[str, type[Any]]
) -> list[ConfigProblem]:
    """Add the team's rules to each role's config in `data`; the problems of every rule."""
    team = data.get("team")
    team_rules = team.get("approve", []) if isinstance(team, Mapping) else []
    problems = _unknown_cards(("team", "approve"), team_rules, card_classes)
    valid = _rules(team_rules)
    roles = data.get("roles")
    for role, card in (roles if isinstance(roles, Mapping) else {}).items():
        config = card.get("config") if isinstance(card, Mapping) else None
        if not isinstance(config, dict):
            continue
        own = config.get("approve", [])
        problems.extend(_unknown_cards(("roles", role, "config", "approve"), own, card_classes))
        if valid and isinstance(own, list):
            config["approve"] = [*own, *(rule for rule in valid if rule not in own)]
    return problems


def _rules(rules: Any) -> list[Any]:
    return [rule for rule in rules if _parsed(rule)] if isinstance(rules, list) else []


def _parsed(rule: Any) -> bool:
    if not isinstance(rule, str | Mapping):
        return False
    try:
        parse_rule(rule)
    except ValueError:
        return False
    return True


def _unknown_cards(
    where: tuple[str, ...], rules: Any, card_classes: Mapping[str, type[Any]]
) -> list[ConfigProblem]:
    if not isinstance(rules, list):
        return []
    problems = []
    installed = ", ".join(card_classes) or "none"
    for index, rule in enumerate(rules):
        if not _parsed(rule):
            continue  # the config's own check says what is wrong with it
        parsed = parse_rule(rule)
        if parsed.card not in card_classes:
            problems.append(
                ConfigProblem(
                    (*where, index),
                    f"rule {shown(parsed.rule)} names no installed card {shown(parsed.card)}; "
                    f"installed cards: {installed}",
                )
            )
    return problems
