"""The `retinue` command: the offline demo and plugin listing, as a user runs them."""

from __future__ import annotations

import argparse
import io
import subprocess
import sys
from collections.abc import Callable
from types import ModuleType

import pytest
from retinue import get_plugin_manager, hookimpl
from retinue.cli.main import main
from retinue.cli.plugin_commands import register


def test_demo_runs_offline_and_hires_by_role() -> None:
    pytest.importorskip("retinue_team", reason="the demo hires through retinue-team")
    from retinue.cli.demo import run_demo

    out = io.StringIO()
    result = run_demo(out)
    text = out.getvalue()
    assert result["members"] == ["@Human", "@Manager", "@Developer", "@QA"]
    assert "@Manager -> @Developer  [request]" in text
    assert "@Manager -> @Human      [response] The plan is ready" in text
    assert "@Developer" in text.split("/team_members", 1)[1]


def test_unknown_command_is_one_clear_error(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_info:
        main(["bogus"])
    assert exit_info.value.code == 2
    assert "invalid choice: 'bogus'" in capsys.readouterr().err


def test_plugins_lists_what_is_installed() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "retinue.cli.main", "plugins"],
        capture_output=True,
        text=True,
        check=True,
    )
    try:
        import retinue_team  # noqa: F401
    except ImportError:
        assert "retinue-team" not in done.stdout
    else:
        assert "retinue-team" in done.stdout


def _command_plugin(name: str, command: str, *, fail: bool = False) -> ModuleType:
    @hookimpl
    def retinue_cli_commands(add_command: Callable[..., argparse.ArgumentParser]) -> None:
        if fail:
            raise RuntimeError("no config")
        parser = add_command(command, help=f"{command} from {name}")
        parser.add_argument("--times", type=int, default=1)
        parser.set_defaults(run=lambda args: 40 + args.times)

    module = ModuleType(name)
    module.retinue_cli_commands = retinue_cli_commands  # type: ignore[attr-defined]
    return module


def _parser_with(*plugins: ModuleType) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="retinue")
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("demo")
    register(commands, get_plugin_manager(autoload=False, plugins=plugins))
    return parser


def test_a_plugin_adds_a_subcommand_through_the_hook() -> None:
    args = _parser_with(_command_plugin("greet", "hello")).parse_args(["hello", "--times", "2"])
    assert args.run(args) == 42


def test_a_subcommand_name_taken_or_a_failing_hook_is_one_line_naming_the_plugin(
    capsys: pytest.CaptureFixture[str],
) -> None:
    parser = _parser_with(
        _command_plugin("clash", "demo"),
        _command_plugin("broken", "later", fail=True),
        _command_plugin("fine", "hello"),
    )
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 2
    assert "plugin 'clash'" in lines[0]
    assert "'demo', which the retinue command already has" in lines[0]
    assert "plugin 'broken'" in lines[1] and "RuntimeError: no config" in lines[1]
    args = parser.parse_args(["hello"])  # the other plugins' commands still work
    assert args.run(args) == 41


def test_retinue_web_and_an_mcp_server_over_http_default_to_different_ports() -> None:
    mcp = pytest.importorskip("retinue_mcp.cli", reason="retinue-mcp serves a team over MCP")
    web = pytest.importorskip("retinue_web.cli", reason="retinue-web serves a team's page")
    assert (web.DEFAULT_PORT, mcp.DEFAULT_PORT) == (8765, 8766)


def test_an_a2a_agent_takes_a_port_of_its_own() -> None:
    a2a = pytest.importorskip("retinue_a2a.cli", reason="retinue-a2a serves a team over A2A")
    assert a2a.DEFAULT_PORT not in (8765, 8766)  # `retinue web`, `retinue mcp serve --http`
