"""The journal: every change a commit by its member, read back with dulwich and with git."""

from __future__ import annotations

import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

from dulwich.objects import Commit
from dulwich.repo import Repo
from retinue import CommandsAnnouncedEvent, ToolCallStartedEvent
from retinue.testing import TeamHarness, call_directive, script
from workspace_scripts import offered_tools, workspace_card


def commits(root: Path) -> list[Commit]:
    """The journal's commits, newest first, as dulwich reads the repository."""
    repo = Repo(str(root))
    try:
        return [entry.commit for entry in repo.get_walker()]
    finally:
        repo.close()


def test_a_write_an_edit_and_an_undo_leave_the_first_content_in_three_commits(
    retinue_team: TeamHarness, root: Path
) -> None:
    team = retinue_team
    writer = team.add(workspace_card("Writer", root))
    editor = team.add(workspace_card("Editor", root))

    team.say(
        writer,
        script(
            call_directive("workspace_write", {"path": "notes.md", "content": "first\n"}),
            answer="done",
        ),
    )
    team.wait_idle(20)
    team.say(
        editor,
        script(
            call_directive("workspace_edit", {"path": "notes.md", "old": "first", "new": "second"}),
            answer="done",
        ),
    )
    team.wait_idle(20)
    assert (root / "notes.md").read_text() == "second\n"

    answer = team.command(editor, "/workspace_undo", timeout=20)

    assert (root / "notes.md").read_text() == "first\n"
    log = commits(root)
    assert len(log) == 3
    assert answer == (
        f"Undid {log[1].id.decode()[:7]} (edit notes.md) in notes.md as {log[0].id.decode()[:7]}."
    )
    assert [c.author for c in log] == [
        b"@Editor <editor@retinue>",
        b"@Editor <editor@retinue>",
        b"@Writer <writer@retinue>",
    ]
    assert [c.message.split(b"\n")[0] for c in log] == [
        f"undo {log[1].id.decode()[:7]}: edit notes.md".encode(),
        b"edit notes.md",
        b"write notes.md",
    ]
    # the write's message names its member, the turn (the message handled) and the chain
    handled = team.received_by("@Writer")[0]
    assert log[2].message.decode().split("\n\n", 1)[1] == (
        f"Member: @Writer\nTurn: {handled.id}\nChain: {handled.chain_id}\n"
    )
    git = shutil.which("git")
    if git is not None:  # and plain git reads the same journal
        shown = subprocess.run(
            [git, "-C", str(root), "log", "--format=%an <%ae>|%s"],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.splitlines()
        assert shown == [
            f"@Editor <editor@retinue>|undo {log[1].id.decode()[:7]}: edit notes.md",
            "@Editor <editor@retinue>|edit notes.md",
            "@Writer <writer@retinue>|write notes.md",
        ]
        status = subprocess.run(
            [git, "-C", str(root), "status", "--porcelain"],
            capture_output=True,
            text=True,
            check=True,
        )
        assert status.stdout == ""  # the index matches the files: nothing looks changed


def test_the_model_reads_the_history_and_a_diff(retinue_team: TeamHarness, root: Path) -> None:
    team = retinue_team
    clerk = team.add(workspace_card("Clerk", root, history_tools=True))

    team.say(
        clerk,
        script(
            call_directive("workspace_write", {"path": "a.txt", "content": "one\n"}),
            call_directive("workspace_write", {"path": "b.txt", "content": "x\n"}),
            call_directive("workspace_edit", {"path": "a.txt", "old": "one", "new": "two"}),
            call_directive("workspace_write", {"path": "a.txt", "content": "two\n"}),  # no change
            call_directive("workspace_history", {"path": "a.txt"}),
            call_directive("workspace_diff", {}),
            call_directive("workspace_history", {}),
            answer="done",
        ),
    )
    team.wait_idle(20)

    log = commits(root)
    assert len(log) == 3  # a write that changed nothing made no commit
    ids = [c.id.decode()[:7] for c in log]
    results = team.tool_results("@Clerk")
    history_a, diff, history_all = results[4:]
    assert history_a.splitlines()[0] == "History of a.txt, newest first:"
    assert [line.split()[0] for line in history_a.splitlines()[1:]] == [ids[0], ids[2]]
    assert history_a.splitlines()[1].endswith("@Clerk: edit a.txt")
    assert diff.splitlines()[0].startswith(f"{ids[0]} ")
    assert "-one\n+two" in diff
    assert [line.split()[0] for line in history_all.splitlines()[1:]] == ids
    effects = {e.tool_name: e.effect for e in team.events(ToolCallStartedEvent)}
    assert effects["workspace_history"] == effects["workspace_diff"] == "read_only"


def test_an_undo_never_overwrites_a_later_change(root: Path, command: Callable[[str], str]) -> None:
    command("/workspace_write plan.md v1")
    command("/workspace_write plan.md v2")
    command("/workspace_write docs/new.md hello")
    first_edit = commits(root)[2].id.decode()[:7]

    assert command(f"/workspace_undo {first_edit}") == (
        "/workspace_undo failed: WorkspaceError: plan.md changed after "
        f"{first_edit}; undo the later commits first (workspace_history shows them)"
    )
    assert (root / "plan.md").read_text() == "v2"
    # undoing a file's creation deletes it, and the directory it leaves empty
    assert command("/workspace_undo").startswith("Undid ")
    assert not (root / "docs").exists()
    assert command("/workspace_undo nonsense") == (
        "/workspace_undo failed: WorkspaceError: the journal has no commit 'nonsense'; "
        "workspace_history lists them"
    )
    assert len(commits(root)) == 4


def test_the_journal_is_out_of_the_tools_reach(root: Path, command: Callable[[str], str]) -> None:
    command("/workspace_write notes.md hi")
    assert (root / ".git").is_dir()
    assert command("/workspace_list") == "1 entry matches '**/*':\nnotes.md (2 bytes)"
    assert command("/workspace_list .*") == "Nothing in the workspace matches '.*'."
    for text in (
        "/workspace_read .git/HEAD",
        "/workspace_write .git/config x",
        "/workspace_delete .GIT/HEAD",
        "/workspace_write sub/.git/x y",
    ):
        assert "the workspace's journal; it is not a workspace path" in command(text)
    assert len(commits(root)) == 1


def test_journal_false_keeps_no_repository_and_offers_no_journal_tools(
    retinue_team: TeamHarness, root: Path
) -> None:
    team = retinue_team
    clerk = team.add(workspace_card("Clerk", root, journal=False))

    assert team.command(clerk, "/workspace_write n.md x", timeout=20).startswith("Created")
    offered = offered_tools(team, root, "Lister", journal=False)

    assert (root / "n.md").read_text() == "x"
    assert not (root / ".git").exists()
    assert [name for name in offered if name.startswith("workspace_")] == [
        "workspace_delete",
        "workspace_edit",
        "workspace_list",
        "workspace_read",
        "workspace_write",
    ]
    announced = {d.name for e in team.events(CommandsAnnouncedEvent) for d in e.commands}
    assert "workspace_write" in announced and "workspace_undo" not in announced


def test_the_history_tools_are_the_models_only_when_asked_for(
    retinue_team: TeamHarness, root: Path
) -> None:
    plain = offered_tools(retinue_team, root, "Lister")
    asked = offered_tools(retinue_team, root, "Reader", history_tools=True)

    # each schema is paid every request
    assert "workspace_history" not in plain and "workspace_history" in asked
    announced = {d.name for e in retinue_team.events(CommandsAnnouncedEvent) for d in e.commands}
    assert {"workspace_history", "workspace_diff", "workspace_undo"} <= announced
