"""`WorkspaceTool` as a card: plain data, discovered by name, one directory per team."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import retinue_workspace.hooks
from pydantic import ValidationError
from retinue import ActorAddress, CardNotBoundError, Channel
from retinue.testing import (
    TeamHarness,
    call_directive,
    check_plugin_card,
    loads_model_stack,
    scripted_card,
)
from retinue_workspace import SYSTEM_PROMPT, WorkspaceTool
from workspace_scripts import workspace_card


def test_the_card_is_a_plugin_card_named_workspace_and_plain_data(tmp_path: Path) -> None:
    card = WorkspaceTool(root=tmp_path / "ws", per_team=False, max_media_images=2)
    check_plugin_card(
        retinue_workspace.hooks,
        card,
        name="workspace",
        channels={Channel.TOOL_CALL, Channel.SYSTEM_PROMPT, Channel.COMMAND},
        hook_names=["retinue_panels", "retinue_tool_cards"],
    )
    assert WorkspaceTool().get_system_prompts() == [SYSTEM_PROMPT]

    assert card.model_dump() == {
        "root": tmp_path / "ws",
        "per_team": False,
        "max_file_bytes": 10 * 1024 * 1024,
        "max_read_chars": 100_000,
        "max_list_entries": 500,
        "max_media_images": 2,
        "max_image_bytes": 5 * 1024 * 1024,
        "journal": True,
        "history_tools": False,
        "run": False,
        "sandbox": "bubblewrap",
        "run_timeout": 300,
        "run_memory_mb": 1024,
        "run_processes": 64,
        "run_output_chars": 20_000,
    }
    assert json.loads(card.model_dump_json())["root"] == str(tmp_path / "ws")


def test_settings_are_validated() -> None:
    with pytest.raises(ValidationError):
        WorkspaceTool(max_file_bytes=0)
    with pytest.raises(ValidationError):
        WorkspaceTool(rooot="typo")  # type: ignore[call-arg]


def test_a_blueprint_card_has_no_workspace() -> None:
    with pytest.raises(CardNotBoundError):
        _ = WorkspaceTool().workspace


def test_each_team_gets_its_own_directory(tmp_path: Path) -> None:
    card = WorkspaceTool(root=tmp_path)
    member = ActorAddress(name="@A", role="A", team_id="0123abcd")
    loner = ActorAddress(name="@B", role="B", agent_id="feed")
    odd = ActorAddress(name="@C", role="C", team_id="../../etc")

    assert card.directory_for(member) == tmp_path / "0123abcd"
    assert card.directory_for(loner) == tmp_path / "agent-feed"
    assert card.directory_for(odd).parent == tmp_path
    assert card.directory_for(odd).name.startswith("team-")
    assert WorkspaceTool(root=tmp_path, per_team=False).directory_for(member) == tmp_path


def test_two_teams_never_share_files(tmp_path: Path, retinue_plugin_manager: object) -> None:
    teams = [TeamHarness(plugin_manager=retinue_plugin_manager) for _ in range(2)]
    try:
        for number, team in enumerate(teams):
            agent = team.add(workspace_card("Clerk", tmp_path, per_team=True))
            team.say(
                agent,
                call_directive("workspace_write", {"path": "mine.txt", "content": str(number)})
                + "\n"
                + call_directive("workspace_list", {}),
            )
            team.wait_idle(20)
        listings = [team.tool_results("@Clerk")[1] for team in teams]
    finally:
        for team in teams:
            assert team.shutdown(10)

    assert listings == ["1 entry matches '**/*':\nmine.txt (1 byte)"] * 2
    contents = sorted(path.read_text() for path in tmp_path.glob("*/mine.txt"))
    assert contents == ["0", "1"]


def test_an_agent_gets_the_card_by_naming_it(
    retinue_team: TeamHarness, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)  # the default root, ./workspace, lands here
    team = retinue_team
    agent = team.add(scripted_card("Clerk", tools=["workspace"]))

    team.say(agent, call_directive("workspace_write", {"path": "a.txt", "content": "named"}))
    team.wait_idle(20)

    assert team.tool_results("@Clerk") == ["Created a.txt (5 bytes, 1 line)."]
    [written] = (tmp_path / "workspace").glob("*/a.txt")
    assert written.parent.name == agent.team_id


def test_discovering_the_plugin_does_not_load_the_model_stack() -> None:
    # `retinue plugins` imports every hook module; pydantic-ai must wait for the first agent.
    assert not loads_model_stack("retinue_workspace.hooks")
