"""The model's tools in real runs: what they answer, retries it can act on, turns that go on."""

from __future__ import annotations

from pathlib import Path

from retinue import ActorAddress, ToolCallFinishedEvent, ToolCallStartedEvent
from retinue.testing import TeamHarness, call_directive, script, send_directive, tool_returns
from workspace_scripts import png, workspace_card


def carry_out(
    team: TeamHarness, member: ActorAddress, *lines: str, answer: str | None = None
) -> list[str]:
    """`member` carries out the directive `lines` (then sends `answer` to @Human); what its
    tool calls answered."""
    team.say(member, script(*lines, answer=answer))
    team.wait_idle(20)
    return team.tool_results(member.name)


def test_a_model_writes_reads_edits_lists_and_deletes(
    retinue_team: TeamHarness, root: Path, clerk: ActorAddress
) -> None:
    team = retinue_team

    results = carry_out(
        team,
        clerk,
        call_directive("workspace_write", {"path": "notes/todo.md", "content": "- a\n- b\n"}),
        call_directive("workspace_edit", {"path": "notes/todo.md", "old": "- b", "new": "- c"}),
        call_directive("workspace_read", {"path": "notes/todo.md"}),
        call_directive("workspace_write", {"path": "scratch.txt", "content": "tmp"}),
        call_directive("workspace_delete", {"path": "scratch.txt"}),
        call_directive("workspace_list", {}),
        answer="done",
    )

    assert results == [
        "Created notes/todo.md (8 bytes, 2 lines).",
        "Edited notes/todo.md: replaced one occurrence at line 2.",
        "notes/todo.md, lines 1-2 of 2:\n     1\t- a\n     2\t- c",
        "Created scratch.txt (3 bytes, 1 line).",
        "Deleted scratch.txt.",
        "2 entries match '**/*':\nnotes/\nnotes/todo.md (8 bytes)",
    ]
    assert (root / "notes" / "todo.md").read_text() == "- a\n- c\n"
    assert [m.content for m in team.received_by("@Human")] == ["done"]
    # the ledger: each call started (with what running it twice does) and finished
    assert [(e.tool_name, e.effect) for e in team.events(ToolCallStartedEvent)] == [
        ("workspace_write", "idempotent"),
        ("workspace_edit", None),
        ("workspace_read", "read_only"),
        ("workspace_write", "idempotent"),
        ("workspace_delete", None),
        ("workspace_list", "read_only"),
    ]
    finished = team.events(ToolCallFinishedEvent)
    assert [e.result for e in finished] == results


def test_a_correctable_mistake_is_sent_back_as_a_retry(
    retinue_team: TeamHarness, root: Path, clerk: ActorAddress
) -> None:
    team = retinue_team

    carry_out(
        team,
        clerk,
        call_directive("workspace_write", {"path": "plan.md", "content": "x\nx\n"}),
        call_directive("workspace_edit", {"path": "plan.md", "old": "x", "new": "y"}),
        call_directive("workspace_edit", {"path": "plan.md", "old": "x\nx", "new": "y"}),
        answer="fixed",
    )

    last = team.model_requests("@Clerk")[-1]
    retried = [part for part in tool_returns(last) if part.outcome == "retried"]
    assert [part.content for part in retried] == [
        "the text to replace occurs 2 times in plan.md; include more of the surrounding "
        "text so that it occurs exactly once"
    ]
    assert (root / "plan.md").read_text() == "y\n"
    assert [m.content for m in team.received_by("@Human")] == ["fixed"]


def test_once_retries_are_spent_the_refusal_is_the_answer_and_the_turn_goes_on(
    retinue_team: TeamHarness, clerk: ActorAddress
) -> None:
    missing = call_directive("workspace_read", {"path": "missing.txt"})

    assert carry_out(retinue_team, clerk, missing, missing, missing, answer="ok") == [
        "there is no missing.txt in the workspace",  # retried
        "Error: there is no missing.txt in the workspace",  # retries spent
        "there is no missing.txt in the workspace",  # a success would reset; a new retry
    ]
    assert [m.content for m in retinue_team.received_by("@Human")] == ["ok"]


def test_a_binary_file_is_described_to_the_model(retinue_team: TeamHarness, root: Path) -> None:
    root.mkdir()
    (root / "shot.png").write_bytes(png())
    clerk = retinue_team.add(workspace_card("Clerk", root))

    [answer] = carry_out(
        retinue_team, clerk, call_directive("workspace_read", {"path": "shot.png"})
    )
    assert answer.startswith("shot.png is an image (image/png, ")


def test_a_broken_root_is_an_answer_not_a_failed_turn(
    retinue_team: TeamHarness, tmp_path: Path
) -> None:
    team = retinue_team
    (tmp_path / "file").write_text("not a directory")
    clerk = team.add(workspace_card("Clerk", tmp_path / "file" / "ws"))
    listing = call_directive("workspace_list", {})

    retry, answer = carry_out(team, clerk, listing, listing, answer="still here")
    assert "cannot be used" in retry
    assert answer == f"Error: {retry}"
    assert [m.content for m in team.received_by("@Human")] == ["still here"]


def test_agents_of_one_team_share_its_workspace(retinue_team: TeamHarness, root: Path) -> None:
    team = retinue_team
    writer = team.add(workspace_card("Writer", root, per_team=True))
    team.add(workspace_card("Reader", root, per_team=True))

    team.say(
        writer,
        call_directive("workspace_write", {"path": "hand-off.md", "content": "over to you"})
        + "\n"
        + send_directive("@Reader", "request", 'call workspace_read {"path": "hand-off.md"}'),
    )
    team.wait_idle(20)

    assert team.tool_results("@Reader") == ["hand-off.md, lines 1-1 of 1:\n     1\tover to you"]
    [team_directory] = root.iterdir()  # <root>/<team id>, the default
    assert (team_directory / "hand-off.md").read_text() == "over to you"
