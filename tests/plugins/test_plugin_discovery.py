"""Discovery of a real, installed distribution through its `retinue` entry point.

The example plugin of the docs (retinue-notes, docs/example-plugin) is installed into a
temporary site directory (see conftest.py), so these tests exercise the same path a
`pip install retinue-foo` takes: importlib.metadata finds the dist-info, pluggy loads the
entry point, the kernel collects the card. Other plugins may be installed beside it (tox's
"all" environment), so the tests look for the example plugin rather than asserting the
whole set.
"""

from __future__ import annotations

import sys
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pluggy
import pytest
from retinue import ActorAddress, AgentConfig, AgentState
from retinue.plugins import (
    DISABLE_AUTOLOAD_ENV,
    DISABLED_PLUGINS_ENV,
    PluginInfo,
    PluginWarning,
    collect_capabilities,
    collect_card_classes,
    describe_plugins,
    get_plugin_manager,
)
from retinue.tools.commands import CommandRegistry


def _active(pm: pluggy.PluginManager) -> set[str]:
    return {name for name, plugin in pm.list_name_plugin() if plugin is not None}


def test_example_plugin_is_discovered_with_its_card(example_plugin: Path) -> None:
    pm = get_plugin_manager()

    assert "notes" in _active(pm)
    cards = collect_card_classes(pm)
    card_module = sys.modules["retinue_notes.card"]
    assert cards["notes"] is card_module.NotesTool
    assert not cards["notes"].default  # a third-party card is opt-in


def test_the_plugin_is_attributed_to_its_distribution(example_plugin: Path) -> None:
    pm = get_plugin_manager()

    distributions = {
        pm.get_name(plugin): dist.project_name for plugin, dist in pm.list_plugin_distinfo()
    }
    assert distributions["notes"] == "retinue-notes"
    info = {entry.name: entry for entry in describe_plugins(pm)}["notes"]
    assert info == PluginInfo(
        name="notes",
        module="retinue_notes.hooks",
        distribution="retinue-notes",
        version="0.1.0",
        cards=["notes"],
        hooks=["retinue_capabilities", "retinue_tool_cards"],
    )
    assert PluginInfo.model_validate_json(info.model_dump_json()) == info


def test_the_discovered_card_serves_its_command(example_plugin: Path) -> None:
    card_class = collect_card_classes(get_plugin_manager())["notes"]
    # The host's state holds the card's own state (the notes), as an agent's does.
    host: Any = SimpleNamespace(
        myAddress=ActorAddress(name="@Ada", role="Scribe"), state=AgentState()
    )
    card = card_class.model_validate({"max_notes": 5}).bind(host)
    card.take_note("the launch is on May 3")  # type: ignore[attr-defined]
    registry = CommandRegistry()
    for command in card.get_commands():
        registry.register(command, owner=card_class.name)

    assert registry.dispatch("/notes") == "Notes of @Ada:\n#1 the launch is on May 3"
    assert registry.descriptors()[0].owner == "notes"


def test_the_plugin_gives_capabilities_built_for_the_config(example_plugin: Path) -> None:
    pm = get_plugin_manager()

    def audits(config: AgentConfig) -> list[Any]:
        found = collect_capabilities(pm, config)
        return [c for c in found if type(c).__module__ == "retinue_notes.audit"]

    assert [c.agent_name for c in audits(AgentConfig(name="@Ada", tools=["notes"]))] == ["@Ada"]
    assert audits(AgentConfig(name="@Bob")) == []  # only agents that carry the card


def test_disabled_plugins_env_blocks_it(
    example_plugin: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(DISABLED_PLUGINS_ENV, " unrelated , notes ")

    with pytest.warns(PluginWarning, match="names no installed retinue plugin: unrelated "):
        pm = get_plugin_manager()

    assert pm.is_blocked("notes")
    assert "notes" not in _active(pm)
    assert "notes" not in collect_card_classes(pm)
    assert "retinue_notes.hooks" not in sys.modules


def test_blocked_argument_blocks_it(example_plugin: Path) -> None:
    pm = get_plugin_manager(blocked=("notes",))

    assert "notes" not in _active(pm)
    assert "notes" not in collect_card_classes(pm)


def test_blocked_argument_and_env_are_merged(
    example_plugin: Path, site_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(DISABLED_PLUGINS_ENV, "notes")
    pm = get_plugin_manager(blocked=["other"])

    assert pm.is_blocked("notes")
    assert pm.is_blocked("other")


@pytest.mark.parametrize("value", ["1", "true", "yes", "TRUE", "anything"])
def test_disable_autoload_env_loads_nothing(
    example_plugin: Path, monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    monkeypatch.setenv(DISABLE_AUTOLOAD_ENV, value)

    pm = get_plugin_manager()

    assert _active(pm) == set()
    assert collect_card_classes(pm) == {}


@pytest.mark.parametrize("value", ["", "0", "false", "False", " 0 "])
def test_disable_autoload_env_off_values_keep_autoload(
    example_plugin: Path, monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    monkeypatch.setenv(DISABLE_AUTOLOAD_ENV, value)

    assert "notes" in _active(get_plugin_manager())


def test_autoload_false_loads_nothing(example_plugin: Path) -> None:
    pm = get_plugin_manager(autoload=False)

    assert _active(pm) == set()


def test_autoload_false_still_takes_plugins_given_in_code(example_plugin: Path) -> None:
    module = SimpleNamespace(__name__="in_code")
    pm = get_plugin_manager(autoload=False, plugins=[module])

    assert _active(pm) == {"in_code"}
    assert describe_plugins(pm)[0].distribution is None
