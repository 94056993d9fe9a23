"""A team file is a dump: every installed card, every config and every example card survive
`model_validate(model_dump())` equal, in Python and in JSON."""

from __future__ import annotations

from pathlib import Path

import pytest
from retinue import AgentCard, AgentConfig, BaseAgent, ToolCard
from retinue.plugins import collect_card_classes, get_plugin_manager
from retinue.teamfile import TeamFile, load_team_file

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "teams"
INSTALLED = collect_card_classes(get_plugin_manager())


@pytest.mark.parametrize("card_class", list(INSTALLED.values()), ids=list(INSTALLED))
def test_every_installed_card_class_round_trips(card_class: type[ToolCard]) -> None:
    card = card_class()
    assert card_class.model_validate(card.model_dump()) == card
    assert card_class.model_validate_json(card.model_dump_json()) == card
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
