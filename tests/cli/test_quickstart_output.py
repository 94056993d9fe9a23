"""examples/quickstart.py prints, with its one-line console, what the README says it prints."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from tests.cli.conftest import ROOT, command_env


def test_the_quickstart_prints_the_readme_output() -> None:
    pytest.importorskip("retinue_team", reason="the quickstart's manager hires a developer")
    readme = (ROOT / "README.md").read_text()
    (expected,) = re.findall(r"^```\n(@Human → @Manager.*?)^```", readme, re.M | re.S)
    done = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "quickstart.py")],
        capture_output=True,
        text=True,
        env=command_env(),
        timeout=120,
        check=True,
    )
    assert done.stdout == expected
