"""What a person is told about the plugin setup: by `retinue plugins`, and by a warning."""

from __future__ import annotations

import json
import sys
import warnings
from pathlib import Path

import pytest
from retinue.cli.main import main
from retinue.plugins import DISABLED_PLUGINS_ENV, get_plugin_manager

from tests.plugins.conftest import write_distribution

CARD_MODULE = """
    from typing import ClassVar
    from retinue import hookimpl
    from retinue.tools.card import ToolCard

    class {cls}(ToolCard):
        name: ClassVar[str] = {card!r}

    @hookimpl
    def retinue_tool_cards():
        return [{cls}]
"""


def card_distribution(root: Path, dist: str, entry: str, card: str, version: str) -> None:
    module = f"{entry}_hooks"
    write_distribution(
        root,
        dist,
        version,
        entry_points={entry: module},
        modules={f"{module}.py": CARD_MODULE.format(cls=f"{entry.title()}Card", card=card)},
    )


@pytest.mark.parametrize("argv", [["plugins"], ["plugins", "--json"]])
def test_plugins_command_fails_naming_both_sides_of_a_card_conflict(
    site_dir: Path, capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    card_distribution(site_dir, "retinue-dup-a", "dup_a", "dup", "1.0")
    card_distribution(site_dir, "retinue-dup-b", "dup_b", "dup", "2.5")

    code = main(argv)

    out, err = capsys.readouterr()
    assert code == 1
    assert out == ""  # the conflict is the whole answer: one line, not a listing after it
    assert err.startswith("retinue: tool card 'dup' is provided twice")
    assert "retinue-dup-a 1.0" in err and "retinue-dup-b 2.5" in err
    assert len(err.strip().splitlines()) == 1


def test_plugins_command_succeeds_once_one_side_is_disabled(
    site_dir: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    card_distribution(site_dir, "retinue-dup-a", "dup_a", "dup", "1.0")
    card_distribution(site_dir, "retinue-dup-b", "dup_b", "dup", "2.5")
    monkeypatch.setenv(DISABLED_PLUGINS_ENV, "dup_b")

    assert main(["plugins"]) == 0
    out, _ = capsys.readouterr()
    assert "retinue-dup-a" in out and "retinue-dup-b" not in out


def test_unknown_names_in_the_disabled_list_are_a_warning_naming_them(
    site_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from retinue.plugins import PluginWarning

    card_distribution(site_dir, "retinue-dup-a", "dup_a", "dup", "1.0")
    monkeypatch.setenv(DISABLED_PLUGINS_ENV, "dup_a, planing,wrokspace")

    with pytest.warns(PluginWarning) as caught:
        pm = get_plugin_manager()

    (warning,) = caught
    message = str(warning.message)
    assert DISABLED_PLUGINS_ENV in message
    assert "planing, wrokspace" in message
    assert "dup_a" in message.split("installed:")[1]  # what it could have named
    assert pm.is_blocked("dup_a")


def test_known_names_in_the_disabled_list_warn_nothing(
    site_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from retinue.plugins import PluginWarning

    card_distribution(site_dir, "retinue-dup-a", "dup_a", "dup", "1.0")
    monkeypatch.setenv(DISABLED_PLUGINS_ENV, "dup_a")

    with warnings.catch_warnings():
        warnings.simplefilter("error", PluginWarning)
        pm = get_plugin_manager()
    assert pm.is_blocked("dup_a")


def test_plugins_json_gives_each_card_its_origin_channels_and_capabilities(
    example_plugin: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["plugins", "--json"]) == 0

    report = {plugin["name"]: plugin for plugin in json.loads(capsys.readouterr().out)}
    notes = report["notes"]
    assert notes["capabilities"] == []  # an agent without the card gets none from it
    (card,) = notes["cards"]
    assert {key: card[key] for key in ("distribution", "version", "default")} == {
        "distribution": "retinue-notes",
        "version": "0.1.0",
        "default": False,
    }
    assert [tool["name"] for tool in card["tools"]] == ["take_note"]
    assert [(c["name"], c["usage"]) for c in card["commands"]] == [
        ("notes", "/notes [last=<last>] [<words>...]")
    ]
    assert card["context_sections"] == ["Notes"]
    assert card["system_prompts"] == [sys.modules["retinue_notes.card"].SYSTEM_PROMPT]
    assert card["capabilities"] == ["NotesAudit"]  # what an agent carrying it gets


def test_plugins_lists_a_cards_capabilities_under_it(
    example_plugin: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["plugins"]) == 0

    out = capsys.readouterr().out
    listing = out[out.index("notes        retinue-notes 0.1.0  (notes)") :].splitlines()
    assert listing[1].startswith("  card notes (opt-in): A notebook")
    assert "    commands: /notes [last=<last>] [<words>...]" in listing
    assert "    capabilities: NotesAudit" in listing


def test_a_card_that_needs_settings_is_described_in_one_line() -> None:
    from typing import ClassVar

    from retinue.cli.plugin_report import describe_card
    from retinue.tools.card import ToolCard

    class NeedsAServer(ToolCard):
        name: ClassVar[str] = "needs_a_server"
        url: str
        port: int

    (problem,) = describe_card(NeedsAServer).problems
    assert problem == (
        "cannot be built with its defaults: url: required, but not given; "
        "port: required, but not given"
    )


KEYED_CARD_MODULE = """
    import os
    from typing import ClassVar
    from retinue import hookimpl
    from retinue.tools.card import ToolCard

    class KeyedCard(ToolCard):
        '''Looks things up with a key from the environment.'''

        name: ClassVar[str] = "keyed"

        def get_tools(self):
            return [self.look_up] if os.environ.get("KEYED_KEY") else []

        def look_up(self, what: str) -> str:
            '''Look something up.'''
            return what

        def unavailable(self):
            if os.environ.get("KEYED_KEY"):
                return []
            return ["look_up is not offered: KEYED_KEY is not set"]

    @hookimpl
    def retinue_tool_cards():
        return [KeyedCard]
"""


def test_plugins_and_check_say_what_a_card_holds_back_and_why(
    site_dir: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    write_distribution(
        site_dir,
        "retinue-keyed",
        "1.0",
        entry_points={"keyed": "keyed_hooks"},
        modules={"keyed_hooks.py": KEYED_CARD_MODULE},
    )
    team_file = tmp_path / "team.toml"
    team_file.write_text(
        '[team]\nentry = "Scout"\n'
        '[roles.Scout]\ntools = ["keyed"]\n[roles.Clerk]\ntools = ["keyed"]\n'
    )
    monkeypatch.delenv("KEYED_KEY", raising=False)

    assert main(["plugins"]) == 0
    assert main(["check", str(team_file)]) == 0
    listing, checked = capsys.readouterr().out.split("ok: team")

    reason = "look_up is not offered: KEYED_KEY is not set"
    assert f"    unavailable here: {reason}" in listing.splitlines()
    assert checked.splitlines()[-1] == f"note: Scout, Clerk: card keyed: {reason}"
    report = json.loads(_plugins_json(capsys))
    (card,) = next(p for p in report if p["name"] == "keyed")["cards"]
    assert card["unavailable"] == [reason]

    monkeypatch.setenv("KEYED_KEY", "set")
    assert main(["check", str(team_file)]) == 0
    assert "note: Scout" not in capsys.readouterr().out


def _plugins_json(capsys: pytest.CaptureFixture[str]) -> str:
    assert main(["plugins", "--json"]) == 0
    return capsys.readouterr().out
