"""Approvals at the console: `retinue run` in a real pseudo-terminal, read off the screen."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cli.conftest import TEAMS

pytest.importorskip("pexpect", reason="the terminal tests drive a pty with pexpect")
pytest.importorskip("pyte", reason="the terminal tests read the screen through pyte")
pytest.importorskip("retinue_workspace", reason="the Writer writes with the workspace card")

from tests.cli.terminal import Terminal  # after the skips: it needs pexpect


def written(root: Path, name: str) -> list[str]:
    """What the team wrote to `name` (in its own directory of the workspace)."""
    return [path.read_text() for path in root.glob(f"workspace/*/{name}")]


@pytest.fixture
def writer(tmp_path: Path) -> Iterator[Terminal]:
    terminal = Terminal(["run", str(TEAMS / "approve.toml")], tmp_path)
    try:
        terminal.wait_for("@Human>")
        yield terminal
    finally:
        terminal.close()


def test_a_write_waits_for_approve_and_a_stale_answer_is_refused(
    writer: Terminal, tmp_path: Path
) -> None:
    writer.type("/help")  # the Writer's calls can wait: its commands are the person's
    screen = writer.wait_for("/pending")
    assert "/approve" in screen and "/deny" in screen

    writer.type("hello")
    screen = writer.wait_for("under rule 'workspace.write*', for @Human")
    assert (  # the list of waiting calls keeps its indent under the Markdown rendering
        "@Writer waits for your approval (answer @Writer with /approve ID or /deny ID REASON):\n"
        '  [1] workspace_write({"path": "notes.txt", "content": "hello"}) '
        "under rule 'workspace.write*', for @Human"
    ) in screen
    writer.wait_for("idle · talking to @Writer")
    assert written(tmp_path, "notes.txt") == []  # parked: nothing written

    writer.type("@Writer /approve 1")
    screen = writer.wait_for("Done: Created notes.txt")
    assert "Approved workspace_write (call 1). The run goes on." in screen
    assert written(tmp_path, "notes.txt") == ["hello"]

    writer.type("@Writer /approve 1")  # strict: that call is answered
    writer.wait_for("/approve 1: refused, that call is no longer pending (already approved).")

    writer.type("other.txt: not this")
    writer.wait_for('[2] workspace_write({"path": "other.txt", "content": "not this"})')
    writer.type("/deny 2 keep notes.txt only")  # the entry agent's command, no @ needed
    writer.wait_for("Done: The person denied this tool call: keep notes.txt only")
    assert written(tmp_path, "other.txt") == []

    writer.type("/quit")
    assert writer.wait_exit() == 0


def test_chat_with_a_card_and_a_rule(tmp_path: Path) -> None:
    chat = Terminal(
        [
            "chat",
            "--model",
            "function:approve_script:writer",  # tests/cli/teams, put on the path below
            "--tool",
            "workspace",
            "--approve",
            "workspace.write*",
        ],
        tmp_path,
        PYTHONPATH=os.pathsep.join([str(TEAMS), os.environ.get("PYTHONPATH", "")]),
    )
    try:
        chat.wait_for("@Human>")
        chat.type("hello")
        chat.wait_for("@Assistant waits for your approval")
        assert written(tmp_path, "notes.txt") == []
        chat.type("/approve")  # one call waits: its id may go
        chat.wait_for("Done: Created notes.txt")
        assert written(tmp_path, "notes.txt") == ["hello"]
        chat.type("/pending")
        chat.wait_for("Nothing of @Assistant waits for approval.")
        chat.type("/quit")
        assert chat.wait_exit() == 0
    finally:
        chat.close()
