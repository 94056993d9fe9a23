"""Plugins add options to the commands that run a team for a person, and attach to the team
those commands start (`retinue_session_options`, `retinue_session_started`)."""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from retinue import hookimpl
from retinue.cli import chat, run
from retinue.cli.plugin_commands import register
from retinue.plugins import get_plugin_manager

SOLO = Path(__file__).resolve().parents[1] / "examples" / "teams" / "solo.toml"


def _watcher(name: str, seen: list[str], option: str = "--watch") -> ModuleType:
    @hookimpl
    def retinue_session_options(parser: argparse.ArgumentParser) -> None:
        parser.add_argument(option, action="store_true")

    @hookimpl
    def retinue_session_started(
        team: Any, args: argparse.Namespace
    ) -> Sequence[Callable[[], object]]:
        if not getattr(args, "watch", False):
            return []
        seen.append(f"started: {team.entry.name}, {len(team.members())} members")
        return [lambda: seen.append("closed")]

    module = ModuleType(name)
    module.retinue_session_options = retinue_session_options  # type: ignore[attr-defined]
    module.retinue_session_started = retinue_session_started  # type: ignore[attr-defined]
    return module


def _parser_with(*plugins: ModuleType) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="retinue")
    commands = parser.add_subparsers(dest="command", required=True)
    run.register(commands)
    chat.register(commands)
    register(commands, get_plugin_manager(autoload=False, plugins=plugins))
    return parser


def test_a_plugin_attaches_to_the_team_a_run_starts_and_closes_at_its_end(
    capsys: pytest.CaptureFixture[str],
) -> None:
    seen: list[str] = []
    parser = _parser_with(_watcher("watcher", seen))
    args = parser.parse_args(["run", str(SOLO), "-m", "hi", "-q", "--watch"])

    code = args.run(args)

    assert code == 0 and capsys.readouterr().out.startswith("You asked: 'hi'.")
    assert seen == ["started: @Assistant, 2 members", "closed"]
    assert parser.parse_args(["chat", "--watch"]).watch is True  # chat has it too


def test_without_its_option_a_plugin_leaves_the_run_alone() -> None:
    seen: list[str] = []
    args = _parser_with(_watcher("watcher", seen)).parse_args(["run", str(SOLO), "-m", "hi", "-q"])

    assert args.run(args) == 0 and seen == []


def test_an_option_the_command_has_is_one_line_naming_the_plugin(
    capsys: pytest.CaptureFixture[str],
) -> None:
    seen: list[str] = []
    parser = _parser_with(_watcher("clash", seen, option="--model"), _watcher("fine", seen))

    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 2  # once for run, once for chat
    assert all("plugin 'clash'" in line and "--model" in line for line in lines)
    assert parser.parse_args(["run", str(SOLO), "--watch"]).watch is True
