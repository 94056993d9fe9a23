"""`retinue new team`, end to end, as a newcomer meets it: in a fresh virtual environment
holding the kernel alone, `retinue new team demo && cd demo && retinue check team.toml &&
pytest` passes. Runs in the `template` tox environment (`pytest -m template`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.template.conftest import ROOT, outcome, run

pytestmark = pytest.mark.template


def test_a_new_team_checks_and_passes_its_tests_offline(fresh: Path, tmp_path: Path) -> None:
    said = run(fresh / "retinue", "new", "team", "demo", cwd=tmp_path)
    assert said.startswith("wrote the team demo in demo (5 files); next:")
    team = tmp_path / "demo"
    assert sorted(path.name for path in team.iterdir()) == [
        "README.md",
        "demo_script.py",
        "pytest.ini",
        "team.toml",
        "test_team.py",
    ]
    checked = run(fresh / "retinue", "check", "team.toml", cwd=team)
    assert checked.startswith("ok: team 'demo', 2 role(s); @Human talks to @Lead (Lead)")
    assert "note: imported the code it names: demo_script (demo_script.py)" in checked
    # a card of ours this environment lacks: the kernel came from this clone (not editable),
    # so the hint installs the clone's folder, not a distribution that is not published
    (team / "more.toml").write_text('[roles.A]\ntools = ["workspace"]\n')
    missing = outcome(fresh / "retinue", "check", "more.toml", cwd=team)
    assert missing.returncode == 1
    assert missing.stderr.strip().endswith(
        f"unknown card 'workspace': its plugin is not installed: "
        f"pip install {ROOT / 'plugins' / 'workspace'}"
    )
    (team / "more.toml").unlink()
    tests = run(fresh / "pytest", cwd=team)
    assert "2 passed" in tests and "failed" not in tests and "skipped" not in tests, tests
    answered = run(fresh / "retinue", "run", "team.toml", "-m", "hi", "--no-record", cwd=team)
    assert answered == "Our researcher says: a finding about 'hi'\n"
