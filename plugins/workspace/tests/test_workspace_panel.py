"""The workspace's files as a frontend's panel: where they are comes from the record's
starts; the listing goes through the same sealed workspace the agents use."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from retinue import AgentConfig, BaseAgent, ModelConfig
from retinue.plugins import collect_panel_classes
from retinue.testing import TeamHarness
from retinue_workspace import WorkspaceTool
from retinue_workspace.panel import WorkspacePanel


def test_the_panel_lists_the_teams_files_and_nothing_outside(
    retinue_plugin_manager: Any, root: Path, outside: Path
) -> None:
    team = TeamHarness(plugin_manager=retinue_plugin_manager)
    panel = WorkspacePanel()
    team.orchestrator_proxy.subscribe(panel, replay=True)
    before = panel.view()
    card = WorkspaceTool(root=root)
    member = team.orchestrator_proxy.createActor(
        BaseAgent,
        AgentConfig(
            name="@Writer", role="Writer", model_cfg=ModelConfig(provider="test"), tools=[card]
        ),
    )
    team.wait_idle()  # its start is recorded, and the panel has folded it
    empty = panel.view()
    directory = card.directory_for(member)
    (directory / "notes").mkdir(parents=True)
    (directory / "notes" / "plan.md").write_text("the plan\n")
    os.symlink(outside / "secret.txt", directory / "leak.txt")
    view = panel.view()
    team.shutdown()

    assert before.note == "no member of this team has the workspace card"
    assert empty.note == f"{directory}: nothing written yet"
    assert view.columns == ["path", "size"]
    assert [row[0] for row in view.rows] == ["leak.txt", "notes/", "notes/plan.md"]
    assert view.rows[0][1] == "symbolic link" and view.rows[2][1] == "9 bytes"
    assert not any("secret" in cell for row in view.rows for cell in row)
    assert view.note == f"{directory}: 3 entries"


def test_the_plugin_offers_the_panel(retinue_plugin_manager: Any) -> None:
    assert collect_panel_classes(retinue_plugin_manager) == {"workspace": WorkspacePanel}
