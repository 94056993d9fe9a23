"""The same operations as slash commands: an operator's answers, and refusals in words."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from retinue import CommandsAnnouncedEvent
from retinue.testing import TeamHarness
from workspace_scripts import workspace_card


def test_an_operator_writes_lists_reads_edits_and_deletes(
    retinue_team: TeamHarness, root: Path, command: Callable[[str], str]
) -> None:
    assert command('/workspace_write notes.md "first line"') == (
        "Created notes.md (10 bytes, 1 line)."
    )
    assert command("/workspace_write docs/guide.md hello") == (
        "Created docs/guide.md (5 bytes, 1 line)."
    )
    assert command("/workspace_list") == (
        "3 entries match '**/*':\ndocs/\ndocs/guide.md (5 bytes)\nnotes.md (10 bytes)"
    )
    assert command("/workspace_list *.md") == "1 entry matches '*.md':\nnotes.md (10 bytes)"
    assert command("/workspace_edit notes.md first second") == (
        "Edited notes.md: replaced one occurrence at line 1."
    )
    assert command("/workspace_read notes.md") == "notes.md, lines 1-1 of 1:\n     1\tsecond line"
    assert command("/workspace_delete docs/guide.md") == "Deleted docs/guide.md."
    assert command("/workspace_root") == str(root)
    assert retinue_team.model_requests("@Clerk") == []  # none of it went to the model


def test_a_refused_command_answers_with_the_reason(
    command: Callable[[str], str], outside: Path
) -> None:
    assert command("/workspace_read ../outside/secret.txt") == (
        "/workspace_read failed: WorkspaceError: '../outside/secret.txt' uses '..'; "
        "a workspace path cannot lead out of the workspace"
    )
    assert command("/workspace_delete nothing.txt") == (
        "/workspace_delete failed: WorkspaceNotFoundError: there is no nothing.txt in the workspace"
    )
    assert (outside / "secret.txt").read_text() == "the secret\n"


def test_the_commands_are_announced_with_their_card(retinue_team: TeamHarness, root: Path) -> None:
    team = retinue_team
    team.add(workspace_card("Clerk", root))
    team.wait_idle(20)

    [announced] = team.events(CommandsAnnouncedEvent)
    mine = {d.name: d for d in announced.commands if d.owner == "workspace"}
    assert sorted(mine) == [
        "workspace_delete",
        "workspace_diff",
        "workspace_edit",
        "workspace_history",
        "workspace_list",
        "workspace_read",
        "workspace_root",
        "workspace_undo",
        "workspace_write",
    ]
    assert (
        mine["workspace_read"].usage == "/workspace_read <path> [offset=<offset>] [limit=<limit>]"
    )
