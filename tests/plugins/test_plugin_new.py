"""`retinue plugin new NAME`: what it writes, and the names it refuses without writing.

The plugin it writes is run end to end (installed in a fresh virtualenv, its own tests,
`retinue plugins --json`) by tests/template, in the `template` tox environment; here it is
read as files (docs/example-plugin is the same template rendered for `notes`, which
tests/plugins/test_example_plugin.py installs and runs in real teams).
"""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

import pytest
import retinue
from retinue import AgentCard, AgentConfig, BaseAgent, get_plugin_manager
from retinue.cli.main import main
from retinue.cli.plugin_names import NAME_RULE, PluginNames, kernel_requirement
from retinue.cli.plugin_new import AGENT_COMMANDS
from retinue.cli.plugin_template import card_members, render
from retinue.testing import TeamHarness

from tests.plugins.conftest import write_distribution


def new(tmp_path: Path, name: str) -> int:
    return main(["plugin", "new", "--dir", str(tmp_path), "--", name])


def test_it_writes_a_complete_distribution_named_after_the_plugin(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert new(tmp_path, "deep-research") == 0

    folder = tmp_path / "deep-research"
    assert sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()) == [
        "README.md",
        "pyproject.toml",
        "src/retinue_deep_research/__init__.py",
        "src/retinue_deep_research/audit.py",
        "src/retinue_deep_research/card.py",
        "src/retinue_deep_research/hooks.py",
        "src/retinue_deep_research/py.typed",
        "tests/conftest.py",
        "tests/test_deep_research.py",
    ]
    project = tomllib.loads((folder / "pyproject.toml").read_text())
    assert project["build-system"]["build-backend"] == "hatchling.build"
    assert project["project"]["name"] == "retinue-deep-research"
    assert project["project"]["dependencies"] == [kernel_requirement(retinue.__version__)]
    assert project["project"]["entry-points"]["retinue"] == {
        "deep_research": "retinue_deep_research.hooks"
    }
    card = (folder / "src/retinue_deep_research/card.py").read_text()
    assert "class DeepResearchTool(ToolCard):" in card
    assert 'name: ClassVar[str] = "deep_research"' in card
    assert "def deep_research(self, *words: str, last: int | None = None) -> str:" in card
    for path in folder.rglob("*.py"):
        ast.parse(path.read_text(), str(path))  # every module is Python
    out, err = capsys.readouterr()
    assert out.splitlines()[0] == f"wrote retinue-deep-research in {folder} (9 files); next:"
    assert f"pip install -e '{folder}[test]'" in out
    assert err == ""
    assert [p.name for p in tmp_path.iterdir()] == ["deep-research"]  # no staging folder left


@pytest.mark.parametrize(
    "name",
    ["Notes", "1notes", "web--search", "notes-", "-notes", "web search", "café", "a" * 41, ""],
)
def test_a_name_that_is_not_a_plugin_name_is_refused_with_the_rule(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    assert new(tmp_path, name) == 2

    _, err = capsys.readouterr()
    assert err == f"retinue plugin new: {name!r} is not a plugin name: {NAME_RULE}\n"
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(
    ("name", "why"),
    [
        ("retinue-notes", "give the plugin's own name, without 'retinue'"),
        ("class", "is a Python keyword"),
        ("take_note", "the card already has a member so named"),
        ("max_notes", "the card already has a member so named"),
        ("model_dump", "the card already has a member so named"),
        ("clear", "every agent has /clear"),
    ],
)
def test_a_name_the_plugin_cannot_take_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str, why: str
) -> None:
    assert new(tmp_path, name) == 2

    _, err = capsys.readouterr()
    assert err.startswith("retinue plugin new: ") and why in err
    assert len(err.splitlines()) == 1
    assert list(tmp_path.iterdir()) == []


def test_an_existing_folder_is_left_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "mine.txt").write_text("keep me")

    assert new(tmp_path, "notes") == 2
    assert capsys.readouterr().err == (
        f"retinue plugin new: {tmp_path / 'notes'} already exists; choose another name or --dir\n"
    )
    assert [p.name for p in (tmp_path / "notes").iterdir()] == ["mine.txt"]
    assert new(tmp_path / "absent", "notes") == 2


def test_names_of_installed_plugins_cards_and_commands_are_refused(
    site_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_distribution(
        site_dir,
        "retinue-clock",
        "2.0",
        entry_points={"clock": "clock_hooks"},
        modules={
            "clock_hooks.py": """
                from typing import ClassVar
                from retinue import ToolCard, hookimpl

                class TimerTool(ToolCard):
                    name: ClassVar[str] = "timer"

                    def get_commands(self):
                        return [self.alarm]

                    def alarm(self) -> str:
                        return "ring"

                @hookimpl
                def retinue_tool_cards():
                    return [TimerTool]
            """
        },
    )
    out = tmp_path / "out"
    out.mkdir()
    for name, why in [
        ("clock", "retinue-clock 2.0 is already installed"),
        ("timer", "an installed card is named 'timer'"),
        ("alarm", "the installed card 'timer' has /alarm"),
    ]:
        assert new(out, name) == 2, name
        assert why in capsys.readouterr().err
    assert list(out.iterdir()) == []


def test_the_agents_own_commands_are_those_the_names_check_knows() -> None:
    team = TeamHarness(plugin_manager=get_plugin_manager(autoload=False))
    try:
        config = AgentConfig(name="@Ada", role="Plain")  # no card: the agent's own commands
        ada = team.add(AgentCard(description="-", agent_class=BaseAgent, config=config))
        names = {d.name for d in team.proxy(ada).command_registry.descriptors()}
    finally:
        assert team.shutdown()
    assert names == AGENT_COMMANDS


def test_the_names_of_a_plugin_and_its_kernel_range() -> None:
    names = PluginNames.of("web_search")
    assert (names.distribution, names.package, names.slug) == (
        "retinue-web-search",
        "retinue_web_search",
        "web_search",
    )
    assert (names.card_class, names.title) == ("WebSearchTool", "Web search")
    assert kernel_requirement("0.1.0") == "retinue>=0.1.0,<0.2"
    assert kernel_requirement("0.12.3.dev1") == "retinue>=0.12.3.dev1,<0.13"
    assert kernel_requirement("1.4.2") == "retinue>=1.4.2,<2"


def test_the_template_fills_every_placeholder() -> None:
    files = render(PluginNames.of("x1"), "0.1.0")
    leftovers = [path for path, text in files.items() if "$" in text]
    assert leftovers == ["tests/test_x1.py"]  # its regex ends with `$`, written `$$`
    assert "take_note" in card_members("0.1.0") and "x1" not in card_members("0.1.0")


def test_a_plugin_that_cannot_load_is_noted_and_does_not_stop_a_new_one(
    site_dir: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_distribution(
        site_dir,
        "retinue-broken",
        entry_points={"broken": "broken_hooks"},
        modules={"broken_hooks.py": "raise ImportError('no such thing')\n"},
    )

    assert new(tmp_path, "fresh") == 0

    err = capsys.readouterr().err
    assert err.startswith("retinue plugin new: note: installed cards not checked: ")
    assert "retinue-broken" in err and len(err.splitlines()) == 1
    assert (tmp_path / "fresh" / "pyproject.toml").is_file()
