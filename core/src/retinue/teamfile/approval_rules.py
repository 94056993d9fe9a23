"""A team file's `approve` rules: the team's for every role, each rule's card checked.

`[team] approve = [...]` applies to every role, after the role's own `approve`; a rule
naming a card that is not installed is one problem at its place in the file (its form is
the config's to check: `retinue.agent.approval_policy`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from retinue.agent.approval_policy import parse_rule
from retinue.teamfile.team_lists import apply_team_list
from retinue.validation import ConfigProblem, shown


def apply_team_rules(
    data: dict[str, Any], card_classes: Mapping[str, type[Any]]
) -> list[ConfigProblem]:
    """Add the team's rules to each role's config in `data`; the problems of every rule."""
    return apply_team_list(
        data, "approve", lambda where, rules: _unknown_cards(where, rules, card_classes), _parsed
    )


def _parsed(rule: Any) -> bool:
    if not isinstance(rule, str | Mapping):
        return False
    try:
        parse_rule(rule)
    except ValueError:
        return False
    return True


def _unknown_cards(
    where: tuple[str, ...], rules: list[Any], card_classes: Mapping[str, type[Any]]
) -> list[ConfigProblem]:
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
