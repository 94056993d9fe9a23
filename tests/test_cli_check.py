"""`retinue check`, `retinue plugins --json`, `--version` and bare `retinue`, run as a user runs
them: in a subprocess, reading what it prints and its exit status."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import retinue
from retinue.cli.main import main
from retinue.plugins import default_card_classes, describe_plugins, get_plugin_manager
from retinue.teamfile import card_sources
from retinue.testing import FOLLOW

GOOD = f"""[team]
name = "pair"
entry = "Lead"

[roles.Lead]
model = "function:{FOLLOW}"
routes_to = ["Helper"]

[roles.Helper]
model = "openai:gpt-4.1"
"""

BROKEN = """[team]
entry = "Boss"

[roles.Lead]
model = "gpt-4.1"
tools = ["no_such_card"]

[roles.Helper]
description = 5
"""


def retinue_cmd(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "retinue", *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env=env,
    )


def test_check_a_good_file_summarises_it(tmp_path: Path) -> None:
    file = tmp_path / "pair.toml"
    file.write_text(GOOD)
    done = retinue_cmd("check", str(file), env={**os.environ, "OPENAI_API_KEY": ""})
    assert done.returncode == 0, done.stderr
    defaults = ", ".join(card.name for card in default_card_classes(get_plugin_manager()))
    assert done.stdout.splitlines() == [
        "ok: team 'pair', 2 role(s); @Human talks to @Lead (Lead)",
        f"  every role also gets the default cards: {defaults or 'none installed'}",
        f"  @Lead (Lead, entry): function:{FOLLOW}; routes to: Helper",
        "  @Helper (Helper): openai:gpt-4.1",
        "note: OPENAI_API_KEY is not set; Helper cannot run until it is",
    ]


def test_check_a_broken_file_exits_non_zero_with_a_line_per_problem(tmp_path: Path) -> None:
    file = tmp_path / "broken.toml"
    file.write_text(BROKEN)
    done = retinue_cmd("check", str(file))
    assert done.returncode == 1
    assert done.stdout == ""
    assert "Traceback" not in done.stderr
    lines = done.stderr.splitlines()
    assert all(line.startswith(f"{file}: ") for line in lines), lines
    keys = [line.removeprefix(f"{file}: ").split(":", 1)[0] for line in lines]
    assert keys == [
        "team.entry (line 2)",
        "roles.Lead.model (line 5)",
        "roles.Lead.tools[0] (line 6)",
        "roles.Helper.description (line 9)",
    ]
    assert "unknown card 'no_such_card'" in lines[2]
    assert "installed cards:" in lines[2]


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ('[roles.A]\ntools = ["nope"]\n', "roles.A.tools[0] (line 2): unknown card 'nope'"),
        ("[roles.A]\n[roles.B]\n", "team.entry: required with more than one role"),
        ("[roles.A]\nskills = 3\n", "roles.A.skills (line 2): input should be a valid list"),
        ('[roles.A]\nmodel = "opneai:x"\n', "roles.A.model (line 2): model string 'opneai:x'"),
        ("[roles.A\n", "TOML syntax: Expected ']' at the end of a table declaration (at line 1"),
    ],
    ids=["unknown card", "missing entry role", "wrong type", "bad model string", "TOML syntax"],
)
def test_each_kind_of_mistake_names_its_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], text: str, key: str
) -> None:
    file = tmp_path / "team.toml"
    file.write_text(text)
    assert main(["check", str(file)]) == 1
    err = capsys.readouterr().err
    assert err.startswith(f"{file}: {key}"), err
    assert len(err.splitlines()) == 1


def test_check_a_missing_file_and_a_bad_model_override(tmp_path: Path) -> None:
    done = retinue_cmd("check", str(tmp_path / "absent.toml"))
    assert (done.returncode, done.stderr.strip()) == (
        1,
        f"{tmp_path / 'absent.toml'}: cannot read the file: No such file or directory",
    )
    file = tmp_path / "pair.toml"
    file.write_text(GOOD)
    done = retinue_cmd("check", str(file), "--model", "gpt4")
    assert done.returncode == 1
    assert done.stderr.startswith("--model: model string 'gpt4': expected 'provider:model'")


def test_plugins_json_describes_every_plugin_and_card() -> None:
    done = retinue_cmd("plugins", "--json")
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    installed = describe_plugins(get_plugin_manager())
    assert [plugin["name"] for plugin in report] == [info.name for info in installed]
    for plugin, info in zip(report, installed, strict=True):
        assert (plugin["distribution"], plugin["version"]) == (info.distribution, info.version)
        assert [card["name"] for card in plugin["cards"]] == info.cards
        assert isinstance(plugin["capabilities"], list)
    cards = {card["name"]: card for plugin in report for card in plugin["cards"]}
    if "team" not in cards:
        pytest.skip("retinue-team is not installed here")
    team = cards["team"]
    assert team["default"] is True
    assert {"hire_members", "fire_members"} <= {tool["name"] for tool in team["tools"]}
    usage = {command["name"]: command["usage"] for command in team["commands"]}
    assert usage["hire_member"] == "/hire_member <role> [name=<name>]"
    assert "Team roster" in team["context_sections"]
    assert team["settings"]["max_members"] >= 1
    assert team["problems"] == []


def test_version_and_bare_command() -> None:
    done = retinue_cmd("--version")
    assert done.returncode == 0
    assert done.stdout.startswith(f"retinue {retinue.__version__} (pydantic-ai ")
    done = retinue_cmd()
    assert done.returncode == 0
    assert done.stdout.startswith("usage: retinue")
    for command in ("check", "plugins", "demo"):
        assert f"    {command}" in done.stdout


ROOT = Path(__file__).resolve().parents[1]


def test_a_card_of_ours_not_installed_names_what_to_install(tmp_path: Path) -> None:
    file = tmp_path / "team.toml"
    file.write_text('[roles.A]\ntools = ["workspace"]\n')
    installed = importlib.util.find_spec("retinue_workspace") is not None
    # Installed, its plugin is kept from loading; without it, there is nothing to disable.
    env = {**os.environ, **({"RETINUE_DISABLED_PLUGINS": "workspace"} if installed else {})}
    done = subprocess.run(
        [sys.executable, "-m", "retinue", "check", str(file)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=ROOT,
        env=env,
    )
    assert done.returncode == 1
    said = (
        "installed but its plugin is not loaded" if installed else "pip install ./plugins/workspace"
    )
    (line,) = done.stderr.splitlines()
    assert line.startswith(f"{file}: roles.A.tools[0] (line 2): unknown card 'workspace': ")
    assert said in line


def test_a_card_of_ours_published_only_names_its_distribution(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setitem(card_sources.FIRST_PARTY_CARDS, "ghost", "ghost")  # no such folder
    file = tmp_path / "team.toml"
    file.write_text('[roles.A]\ntools = ["ghost"]\n')
    assert main(["check", str(file)]) == 1
    assert (
        capsys.readouterr()
        .err.strip()
        .endswith("unknown card 'ghost': its plugin is not installed: pip install retinue-ghost")
    )


def test_the_table_of_our_cards_names_every_card_of_the_repositorys_plugins() -> None:
    found = {}
    for card in ROOT.glob("plugins/*/src/*/card.py"):
        for name in re.findall(r'^    name: ClassVar\[str\] = "([a-z_]+)"', card.read_text(), re.M):
            found[name] = card.parents[2].name
    assert found == card_sources.FIRST_PARTY_CARDS
