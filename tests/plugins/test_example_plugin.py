"""The example plugin of the docs (retinue-notes), installed and run in a real agent.

The distribution is installed into a temporary site directory (see conftest.py) and found
through its entry point alone: the agent names the card `"notes"` in its config, exactly as
a team file would. Its model is the plugin's own scripted model, so no network is needed.
"""

from __future__ import annotations

import importlib.util
import logging
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from retinue import AgentCard, AgentConfig, BaseAgent
from retinue.testing import TeamHarness

from tests.plugins.conftest import EXAMPLE_PLUGIN

PLUGIN_TESTS = EXAMPLE_PLUGIN / "tests"


@pytest.fixture
def team(example_plugin: Path) -> Iterator[TeamHarness]:
    """A team on plain discovery, started after the plugin was installed."""
    harness = TeamHarness()
    yield harness
    assert harness.shutdown(timeout=10), "an actor was still busy at the end of the test"


def plugin_scripted_model(example_plugin: Path) -> Any:
    """The scripted model the plugin's own tests run (`scribe_model` in its test module)."""
    spec = importlib.util.spec_from_file_location(
        "notes_plugin_tests", PLUGIN_TESTS / "test_notes.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.scribe_model


def test_the_installed_plugin_runs_in_a_real_agent(
    team: TeamHarness, example_plugin: Path, caplog: pytest.LogCaptureFixture
) -> None:
    ada = team.add(
        AgentCard(
            description="Keeps track of what the team decided",
            agent_class=BaseAgent,
            config=AgentConfig(name="@Ada", role="Scribe", tools=["notes"]),
        ),
        model=plugin_scripted_model(example_plugin),
    )
    caplog.set_level(logging.INFO, logger="retinue_notes")

    team.say(ada, "Remember: the launch is on May 3.")  # the model calls take_note
    team.wait_idle()
    team.say(ada, "When is the launch?")  # the note comes back in a context update
    team.wait_idle()
    team.say(ada, "/notes")  # a person reads the notebook
    team.wait_idle()

    assert [m.content for m in team.received_by("@Human")] == [
        "Noted as #1.",
        "From my notes: the launch is on May 3.",
        "Notes of @Ada:\n#1 the launch is on May 3.",
    ]
    context = team.proxy(ada).get_context_transcript()
    first_block, second_block = context.split("**Context update ")[1:3]
    assert first_block.startswith("1** — current state.")
    assert "### Notes\n(none)" in first_block
    assert second_block.startswith("2** — state has changed since the last update.")
    assert "### Notes (changed)\nAdded:\n- #1: the launch is on May 3." in second_block
    # The plugin's capability was built for this agent and saw the tool call in its run.
    assert any(
        "@Ada, run " in r.getMessage() and "take_note('the launch is on May 3.')" in r.getMessage()
        for r in caplog.records
    )


def test_the_plugin_passes_its_own_tests_once_installed(
    example_plugin: Path, site_dir: Path
) -> None:
    """docs/example-plugin/tests is what the plugin-authoring guide shows; keep it true."""
    env = {**os.environ, "PYTHONPATH": str(site_dir)}  # where the plugin is installed
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(PLUGIN_TESTS)],
        cwd=EXAMPLE_PLUGIN,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stdout + done.stderr
