"""A committed cassette played by `retinue run --cassette` as CI runs it: a fresh process, a
clean environment, no provider key, no store anywhere."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.conftest import TEAMS, command_env

CASSETTE = Path(__file__).resolve().parents[1] / "replay" / "cassettes" / "pair.jsonl"


def test_a_cassette_plays_from_the_command_line_with_no_key_and_no_user_store(
    tmp_path: Path,
) -> None:
    """As CI runs it: a clean environment, no provider key, no store anywhere."""
    pytest.importorskip("retinue_team", reason="the lead hires its helper through retinue-team")
    env = {k: v for k, v in command_env(HOME=str(tmp_path)).items() if k != "RETINUE_STORE"}
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "retinue",
            "run",
            str(TEAMS / "pair.toml"),
            "--cassette",
            str(CASSETTE),
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=env,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.endswith(
        "3 turns recorded, 3 replayed, 3 equal, 0 differing; the same answers to the person\n"
    )
    assert done.stderr == ""
    assert list(tmp_path.iterdir()) == []  # nothing recorded, nothing written
