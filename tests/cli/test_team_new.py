"""`retinue new team NAME`: what it writes runs as it is; what it refuses, it refuses in one
line and writes nothing. (In a fresh virtual environment: tests/template.)"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from retinue.cli.main import main


def test_the_new_team_checks_and_its_own_tests_pass(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["new", "team", "release-crew", "--dir", str(tmp_path)]) == 0
    team = tmp_path / "release-crew"
    assert capsys.readouterr().out.splitlines()[:2] == [
        f"wrote the team release-crew in {team} (5 files); next:",
        f"  cd {team}",
    ]
    assert (team / "release_crew_script.py").is_file()
    assert main(["check", str(team / "team.toml")]) == 0
    assert capsys.readouterr().out.startswith("ok: team 'release-crew', 2 role(s)")
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
        cwd=team,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 passed" in done.stdout


@pytest.mark.parametrize(
    ("name", "problem"),
    [
        ("Crew", "'Crew': a team name is 1 to 40 lowercase letters"),
        ("taken", "already exists; choose another name or --dir"),
        ("shadowed", "a module shadowed_script is importable already"),
    ],
)
def test_a_name_that_cannot_be_used_is_one_line_and_nothing_is_written(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    name: str,
    problem: str,
) -> None:
    (tmp_path / "taken").mkdir()
    elsewhere = tmp_path / "installed"
    elsewhere.mkdir()
    (elsewhere / "shadowed_script.py").write_text("")
    monkeypatch.syspath_prepend(str(elsewhere))
    before = sorted(tmp_path.iterdir())
    assert main(["new", "team", name, "--dir", str(tmp_path)]) == 2
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith("retinue new team: ") and problem in line
    assert sorted(tmp_path.iterdir()) == before
