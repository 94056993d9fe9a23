"""What the template tests share: a fresh virtual environment holding the kernel built from
this checkout, and a way to run a command in it with nothing of this one's environment."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def outcome(
    *command: str | Path, cwd: Path | None = None, timeout: float = 300
) -> subprocess.CompletedProcess[str]:
    """Run `command` in a clean environment (nothing of this one's Python, virtualenv,
    retinue, pip or pytest settings) to its end, whatever its exit status."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("PYTHON", "VIRTUAL_ENV", "RETINUE_", "PIP_", "PYTEST_"))
    }
    return subprocess.run(
        [str(part) for part in command],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def run(*command: str | Path, cwd: Path | None = None, timeout: float = 300) -> str:
    """Run `command` in a clean environment; its stdout, or a failure showing its output."""
    done = outcome(*command, cwd=cwd, timeout=timeout)
    assert done.returncode == 0, f"{command} failed:\n{done.stdout[-4000:]}\n{done.stderr[-4000:]}"
    return done.stdout


def uv(*arguments: str | Path) -> None:
    """Run uv from its cache when the cache has everything; online only when it does not."""
    found = shutil.which("uv", path=str(Path(sys.executable).parent)) or shutil.which("uv")
    assert found is not None, "uv is needed to install the kernel's dependencies from its cache"
    try:
        run(found, *arguments, "--offline")
    except AssertionError:
        run(found, *arguments)


@pytest.fixture(scope="session")
def fresh(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A new virtual environment holding pip, the kernel built from core/, and pytest."""
    venv = tmp_path_factory.mktemp("fresh") / "venv"
    run(sys.executable, "-m", "venv", venv)  # pip from the interpreter's own ensurepip: offline
    uv("pip", "install", "--python", venv / "bin" / "python", f"{ROOT / 'core'}[test]")
    return venv / "bin"
