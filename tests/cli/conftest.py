"""The `retinue` command's tests run it as a user does: a subprocess, in a pseudo-terminal or
with pipes, in a fresh directory (the workspace card writes beside it)."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TEAMS = Path(__file__).resolve().parent / "teams"
EXAMPLES = ROOT / "examples" / "teams"

Run = Callable[..., subprocess.CompletedProcess[str]]


def command_env(**extra: str) -> dict[str, str]:
    """The environment of a run: no provider keys, no colours forced, the test's additions."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "RETINUE_MODEL", "FORCE_COLOR")
    }
    env.update(extra)
    return env


@pytest.fixture
def retinue(tmp_path: Path) -> Run:
    """Run `python -m retinue ARGS` to its end in a fresh directory; stdin from `input`."""

    def run(*args: str, input: str | None = None, **env: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "retinue", *args],
            capture_output=True,
            text=True,
            input=input if input is not None else "",
            cwd=tmp_path,
            env=command_env(**env),
            timeout=120,
            check=False,
        )

    return run
