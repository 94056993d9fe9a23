"""Where no sandbox can be made, `workspace_run` is not offered, and `retinue check` says why."""

from __future__ import annotations

from pathlib import Path

import pytest
from retinue.cli.check import summary
from retinue.teamfile import loads_team_file
from retinue.testing import TeamHarness
from retinue_workspace import WorkspaceTool
from retinue_workspace.sandbox import sandbox_problem
from workspace_scripts import offered_tools

TEAM = """
[team]
entry = "Dev"

[roles.Dev]
model = "test"
tools = [{ card = "workspace", run = true }]
"""


def test_without_a_sandbox_the_tool_is_not_offered_and_check_says_why(
    retinue_team: TeamHarness, root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RETINUE_BWRAP", "/nonexistent/bwrap")
    sandbox_problem.cache_clear()
    try:
        offered = offered_tools(retinue_team, root, "Lister", run=True)
        notes = WorkspaceTool(run=True).unavailable()
        unconfined = WorkspaceTool(run=True, sandbox="none").unavailable()
        check = summary(loads_team_file(TEAM))
    finally:
        sandbox_problem.cache_clear()
    assert "workspace_run" not in offered and "workspace_write" in offered
    assert notes == [
        "workspace_run (run = true) is not offered here: /nonexistent/bwrap not found "
        "(install Debian's bubblewrap package, and util-linux for prlimit and setpriv)"
    ]
    assert unconfined == []  # the team file chose to run commands unconfined
    assert WorkspaceTool().unavailable() == []  # nothing asked for, nothing held back
    assert check[-1] == f"note: Dev: card workspace: {notes[0]}"
