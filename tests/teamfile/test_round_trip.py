"""A team file is a dump: every installed card, every config and every example card survive
`model_validate(model_dump())` equal, in Python and in JSON."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal, get_args, get_origin

import pytest
from pydantic import ValidationError
from retinue import AgentCard, AgentConfig, BaseAgent, ToolCard
from retinue.plugins import collect_card_classes, get_plugin_manager
from retinue.teamfile import TeamFile, load_team_file

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "teams"
INSTALLED = collect_card_classes(get_plugin_manager())


def changed_settings(card_class: type[ToolCard]) -> dict[str, Any]:
    """A value unlike the default for every plain setting, so the trip carries something."""
    changed: dict[str, Any] = {}
    for name, field in card_class.model_fields.items():
        default = field.get_default(call_default_factory=True)
        if isinstance(default, bool):
            changed[name] = not default
        elif isinstance(default, int | float):
            changed[name] = default + 1
        elif isinstance(default, str):
            choices = [v for v in literals(field.annotation) if v != default]
            changed[name] = choices[0] if choices else default + "-changed"
        elif isinstance(default, Path):
            changed[name] = default / "changed"
    return changed


def literals(annotation: Any) -> list[Any]:
    """The values a `Literal` in `annotation` allows (through unions), in order."""
    if get_origin(annotation) is Literal:
        return list(get_args(annotation))
    return [value for arg in get_args(annotation) for value in literals(arg)]


@pytest.mark.parametrize("card_class", list(INSTALLED.values()), ids=list(INSTALLED))
def test_every_installed_card_class_round_trips(card_class: type[ToolCard]) -> None:
    try:
        default = card_class()
    except ValidationError:  # a card with required settings (an MCP server's connection)
        pytest.skip(f"{card_class.__name__} needs settings; its own tests round-trip it")
    card = card_class.model_validate(changed_settings(card_class))
    assert card != default or not changed_settings(card_class)
    for each in (default, card):
        assert card_class.model_validate(each.model_dump()) == each
        assert card_class.model_validate_json(each.model_dump_json()) == each
    config = AgentConfig(name="@Dev", role="Dev", tools=[card, card_class.name])
    assert AgentConfig.model_validate(config.model_dump()) == config
    again = AgentConfig.model_validate_json(config.model_dump_json())
    assert again == config
    assert type(again.tools[0]) is card_class
    agent_card = AgentCard(agent_class=BaseAgent, config=config, routes_to=["Dev"])
    assert AgentCard.model_validate(agent_card.model_dump()) == agent_card
    assert AgentCard.model_validate_json(agent_card.model_dump_json()) == agent_card


def test_cards_are_installed_here() -> None:
    """The parametrized test above ran over something (the kernel-only matrix has none)."""
    if not INSTALLED:
        pytest.skip("no plugin installed: the kernel-only environment")
    assert all(isinstance(name, str) for name in INSTALLED)


EXAMPLE_FILES = sorted(EXAMPLES.glob("*.toml"))


@pytest.mark.parametrize("path", EXAMPLE_FILES, ids=[p.stem for p in EXAMPLE_FILES])
def test_every_example_card_round_trips(path: Path) -> None:
    missing = _missing_cards(path)
    if missing:
        pytest.skip(f"needs cards not installed here: {', '.join(missing)}")
    spec = load_team_file(path)
    for card in spec.roles.values():
        assert AgentCard.model_validate(card.model_dump()) == card
        assert AgentCard.model_validate_json(card.model_dump_json()) == card
        assert AgentConfig.model_validate(card.config.model_dump()) == card.config
    assert TeamFile.model_validate(spec.model_dump()) == spec
    assert TeamFile.model_validate_json(spec.model_dump_json()) == spec


def _missing_cards(path: Path) -> list[str]:
    import tomllib

    roles = tomllib.loads(path.read_text())["roles"].values()
    named = {
        item if isinstance(item, str) else item["card"]
        for role in roles
        for item in role.get("tools", [])
    }
    return sorted(named - set(INSTALLED))
