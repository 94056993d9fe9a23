"""The pytest plugin is opt-in: installing retinue changes nothing in anyone else's tests.

Each case runs pytest on a throwaway project in its own directory (its own `pytest.ini`, so
nothing of this repository's configuration reaches it) with retinue installed, as a user's
project would have it.
"""

from __future__ import annotations

import importlib.metadata
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from pydantic_ai import models

PLUGIN = "retinue.testing.plugin"

PLAIN_PROJECT_TEST = """
    import sys

    from pydantic_ai import models


    def test_real_requests_stay_allowed(request):
        assert models.ALLOW_MODEL_REQUESTS is True
        assert "retinue_team" not in request.fixturenames


    def test_the_retinue_plugin_is_not_loaded():
        assert "retinue.testing.plugin" not in sys.modules
"""

OPTED_IN_TEST = """
    import pytest
    from pydantic_ai import models


    def test_real_requests_are_refused():
        assert models.ALLOW_MODEL_REQUESTS is False


    @pytest.mark.integration
    def test_an_integration_test_may_make_them():
        assert models.ALLOW_MODEL_REQUESTS is True


    def test_the_team_fixture_is_there(retinue_team):
        assert retinue_team.roster() == {"@Human": "Human"}
"""


def run_project(root: Path, test: str, conftest: str | None = None) -> str:
    """Run pytest on a project holding `test` (and `conftest`); fail with its output if red."""
    (root / "pytest.ini").write_text("[pytest]\n")
    (root / "test_project.py").write_text(textwrap.dedent(test))
    if conftest is not None:
        (root / "conftest.py").write_text(textwrap.dedent(conftest))
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    env["RETINUE_DISABLE_PLUGIN_AUTOLOAD"] = "1"  # the team fixture needs no card here
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return done.stdout


def test_retinue_registers_no_pytest_entry_point() -> None:
    registered = [
        ep.value
        for ep in importlib.metadata.entry_points(group="pytest11")
        if ep.value.startswith("retinue")
    ]
    assert registered == []


def test_a_project_that_installs_retinue_keeps_its_model_requests(tmp_path: Path) -> None:
    assert "2 passed" in run_project(tmp_path, PLAIN_PROJECT_TEST)


def test_a_project_opts_in_through_its_conftest(tmp_path: Path) -> None:
    """The way the docs show; `-p retinue.testing.plugin` names the same module."""
    conftest = f"pytest_plugins = [{PLUGIN!r}]\n"
    assert "3 passed" in run_project(tmp_path, OPTED_IN_TEST, conftest=conftest)


def test_this_repository_opts_in(pytestconfig: pytest.Config) -> None:
    """Our own suites run with the plugin, through the root conftest.py, in every tox env."""
    assert pytestconfig.pluginmanager.has_plugin(PLUGIN)
    assert models.ALLOW_MODEL_REQUESTS is False
