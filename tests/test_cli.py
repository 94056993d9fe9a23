"""The `retinue` command: the offline demo and plugin listing, as a user runs them."""

from __future__ import annotations

import io
import subprocess
import sys

import pytest
from retinue.cli.main import main


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
