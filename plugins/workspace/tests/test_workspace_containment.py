"""Nothing outside the root is read or written: escapes by path, by link, by race, by device."""

from __future__ import annotations

import os
import socket
import stat
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from retinue.testing import TeamHarness, call_directive, send_directive
from retinue_workspace import Workspace, WorkspaceError
from retinue_workspace import files as workspace_files
from workspace_scripts import workspace_card


def snapshot(place: Path) -> dict[str, bytes]:
    """Every file under `place` with its bytes: what 'untouched' is checked against."""
    return {
        str(path.relative_to(place)): path.read_bytes()
        for path in sorted(place.rglob("*"))
        if path.is_file() and not path.is_symlink()
    }


@pytest.fixture
def ws(root: Path) -> Workspace:
    workspace = Workspace(root)
    workspace.write("inside.txt", "inside\n")  # creates the root
    return workspace


Operation = Callable[[Workspace, str], object]

OPERATIONS: dict[str, Operation] = {
    "read": lambda ws, path: ws.read(path),
    "write": lambda ws, path: ws.write(path, "overwritten\n"),
    "edit": lambda ws, path: ws.edit(path, "secret", "leaked"),
    "delete": lambda ws, path: ws.delete(path),
    "list": lambda ws, path: ws.listing(path + "/*"),
}


@pytest.fixture(params=sorted(OPERATIONS))
def operation(request: pytest.FixtureRequest) -> Iterator[Operation]:
    yield OPERATIONS[request.param]


# ---------------------------------------------------------------------- paths as written


@pytest.mark.parametrize(
    ("path", "reason"),
    [
        ("../outside/secret.txt", "uses '..'"),
        ("notes/../../outside/secret.txt", "uses '..'"),
        ("..", "uses '..'"),
        ("/etc/passwd", "is an absolute"),
        ("\x00x", "NUL"),
    ],
)
def test_paths_that_climb_out_or_are_absolute_are_refused_by_every_operation(
    ws: Workspace, outside: Path, operation: Operation, path: str, reason: str
) -> None:
    before = snapshot(outside)

    with pytest.raises(WorkspaceError, match=reason):
        operation(ws, path)

    assert snapshot(outside) == before
    assert sorted(os.listdir(outside)) == ["secret.txt"]


def test_the_root_itself_is_not_a_file_to_read_write_or_delete(ws: Workspace) -> None:
    for path in ("", ".", "./", " "):
        with pytest.raises(WorkspaceError, match=r"workspace itself"):
            ws.write(path, "x")
        with pytest.raises(WorkspaceError, match=r"workspace itself"):
            ws.delete(path)
        with pytest.raises(WorkspaceError, match=r"workspace itself"):
            ws.read(path)
    assert ws.root.is_dir()


# ---------------------------------------------------------------------- symbolic links


@pytest.mark.parametrize("name", ["read", "write", "edit", "delete"])
def test_a_link_to_the_file_system_root_is_refused(
    ws: Workspace, root: Path, outside: Path, name: str
) -> None:
    (root / "everything").symlink_to("/")
    target = f"everything{outside}/secret.txt"  # the secret, reached through the link
    before = snapshot(outside)

    with pytest.raises(WorkspaceError, match=r"leads outside the workspace"):
        OPERATIONS[name](ws, target)

    assert snapshot(outside) == before


def test_a_listing_never_follows_a_link_out(ws: Workspace, root: Path, outside: Path) -> None:
    (root / "everything").symlink_to("/")
    (root / "elsewhere").symlink_to(outside)

    listing = ws.listing("**/*")

    assert [str(entry) for entry in listing.entries] == [
        "elsewhere (symbolic link)",
        "everything (symbolic link)",
        "inside.txt (7 bytes)",
    ]
    assert ws.listing("everything/*").total == 0
    assert ws.listing("elsewhere/**/*").total == 0


def test_a_link_to_a_file_outside_is_refused_and_the_file_is_untouched(
    ws: Workspace, root: Path, outside: Path
) -> None:
    (root / "secret.txt").symlink_to(outside / "secret.txt")
    before = snapshot(outside)

    for name in ("read", "write", "edit"):
        with pytest.raises(WorkspaceError, match=r"leads outside the workspace"):
            OPERATIONS[name](ws, "secret.txt")

    assert snapshot(outside) == before
    # deleting the link removes the link, never what it points to
    assert ws.delete("secret.txt") == (
        "Deleted the link secret.txt (what it pointed to is untouched)."
    )
    assert not (root / "secret.txt").is_symlink()
    assert snapshot(outside) == before


def test_a_linked_directory_leading_outside_is_refused_for_new_files_too(
    ws: Workspace, root: Path, outside: Path
) -> None:
    (root / "drop").symlink_to(outside)

    with pytest.raises(WorkspaceError, match=r"leads outside the workspace"):
        ws.write("drop/new.txt", "planted")
    with pytest.raises(WorkspaceError, match=r"leads outside the workspace"):
        ws.write("drop/deeper/new.txt", "planted")

    assert sorted(os.listdir(outside)) == ["secret.txt"]


def test_links_that_stay_inside_the_workspace_work(ws: Workspace, root: Path) -> None:
    (root / "docs").mkdir()
    (root / "docs" / "guide.md").write_text("one\n")
    (root / "latest").symlink_to("docs")
    (root / "guide.md").symlink_to("docs/guide.md")

    assert ws.read("latest/guide.md").endswith("     1\tone")
    ws.write("guide.md", "two\n")

    assert (root / "guide.md").is_symlink()  # the link stays; its target changed
    assert (root / "docs" / "guide.md").read_text() == "two\n"


def test_a_link_loop_is_refused_in_words(ws: Workspace, root: Path) -> None:
    (root / "a").symlink_to("b")
    (root / "b").symlink_to("a")

    with pytest.raises(WorkspaceError):
        ws.read("a")
    with pytest.raises(WorkspaceError):
        ws.write("a/x.txt", "x")


def test_a_link_swapped_in_after_the_check_is_not_followed(
    ws: Workspace, root: Path, outside: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The race: `docs` is a directory when the path is resolved, a link when it is opened."""
    (root / "docs").mkdir()
    real_realpath = os.path.realpath

    def resolve_then_swap(path: str | os.PathLike[str]) -> str:
        resolved = real_realpath(path)
        if (root / "docs").is_dir() and not (root / "docs").is_symlink():
            (root / "docs").rmdir()
            (root / "docs").symlink_to(outside)
        return resolved

    monkeypatch.setattr(workspace_files.os.path, "realpath", resolve_then_swap)
    before = snapshot(outside)

    with pytest.raises(WorkspaceError, match=r"became a symbolic link"):
        ws.write("docs/secret.txt", "overwritten")

    assert snapshot(outside) == before


def test_a_file_swapped_for_a_link_after_the_check_is_not_followed(
    ws: Workspace, root: Path, outside: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    real_realpath = os.path.realpath

    def resolve_then_swap(path: str | os.PathLike[str]) -> str:
        resolved = real_realpath(path)
        target = root / "inside.txt"
        if not target.is_symlink():
            target.unlink()
            target.symlink_to(outside / "secret.txt")
        return resolved

    monkeypatch.setattr(workspace_files.os.path, "realpath", resolve_then_swap)

    with pytest.raises(WorkspaceError, match=r"symbolic link"):
        ws.read("inside.txt")


def test_a_file_swapped_for_a_link_between_its_check_and_its_open_is_not_followed(
    ws: Workspace, root: Path, outside: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The narrowest race: the file is looked at (a regular file), then becomes a link."""
    real_stat = os.stat
    target = root / "inside.txt"

    def stat_then_swap(path: Any, *args: Any, **kwargs: Any) -> os.stat_result:
        result = real_stat(path, *args, **kwargs)
        if path == "inside.txt" and not target.is_symlink():
            target.unlink()
            target.symlink_to(outside / "secret.txt")
        return result

    monkeypatch.setattr(workspace_files.os, "stat", stat_then_swap)

    with pytest.raises(WorkspaceError, match="became a symbolic link while it was being opened"):
        ws.read("inside.txt")


def test_writing_over_a_hard_link_never_changes_its_twin_outside(
    ws: Workspace, root: Path, outside: Path
) -> None:
    os.link(outside / "secret.txt", root / "twin.txt")
    before = snapshot(outside)

    ws.write("twin.txt", "replaced\n")
    ws.edit("twin.txt", "replaced", "edited")

    assert (root / "twin.txt").read_text() == "edited\n"
    assert snapshot(outside) == before


# ---------------------------------------------------------------------- special files


def test_a_fifo_is_refused_without_blocking(ws: Workspace, root: Path) -> None:
    os.mkfifo(root / "pipe")

    with pytest.raises(WorkspaceError, match=r"pipe is a FIFO; only regular files"):
        ws.read("pipe")
    with pytest.raises(WorkspaceError, match=r"pipe is a FIFO"):
        ws.write("pipe", "x")
    assert stat.S_ISFIFO(os.lstat(root / "pipe").st_mode)


def test_a_socket_is_refused(ws: Workspace, tmp_path: Path) -> None:
    if len(str(ws.root / "s")) > 100:
        pytest.skip("the temporary directory is too deep for a Unix socket path")
    server = socket.socket(socket.AF_UNIX)
    try:
        server.bind(str(ws.root / "s"))
        with pytest.raises(WorkspaceError, match=r"s is a socket"):
            ws.read("s")
        with pytest.raises(WorkspaceError, match=r"s is a socket"):
            ws.edit("s", "a", "b")
    finally:
        server.close()


def test_a_link_to_a_device_is_refused(ws: Workspace, root: Path) -> None:
    (root / "null").symlink_to("/dev/null")
    (root / "zero").symlink_to("/dev/zero")

    with pytest.raises(WorkspaceError, match=r"leads outside the workspace"):
        ws.read("zero")
    with pytest.raises(WorkspaceError, match=r"leads outside the workspace"):
        ws.write("null", "x")


def test_a_device_inside_the_root_is_refused(ws: Workspace, root: Path) -> None:
    try:
        os.mknod(root / "dev", 0o600 | stat.S_IFCHR, os.makedev(1, 3))  # /dev/null's numbers
    except PermissionError:
        pytest.skip("creating a device node needs privileges")

    with pytest.raises(WorkspaceError, match=r"dev is a device"):
        ws.read("dev")
    with pytest.raises(WorkspaceError, match=r"dev is a device"):
        ws.write("dev", "x")


# ---------------------------------------------------------------------- the root


def test_the_root_is_created_when_first_used(tmp_path: Path) -> None:
    ws = Workspace(tmp_path / "a" / "b")
    assert not (tmp_path / "a").exists()

    assert str(ws.listing()) == "The workspace is empty."
    assert (tmp_path / "a" / "b").is_dir()


def test_a_root_replaced_by_a_link_is_refused(ws: Workspace, root: Path, outside: Path) -> None:
    (root / "inside.txt").unlink()
    root.rmdir()
    root.symlink_to(outside)
    before = snapshot(outside)

    for name in sorted(OPERATIONS):
        with pytest.raises(WorkspaceError, match=r"replaced"):
            OPERATIONS[name](ws, "secret.txt")

    assert snapshot(outside) == before


def test_a_root_replaced_by_another_directory_is_refused(
    ws: Workspace, root: Path, tmp_path: Path
) -> None:
    root.rename(tmp_path / "moved")
    root.mkdir()

    with pytest.raises(WorkspaceError, match=r"replaced by another directory"):
        ws.read("inside.txt")


def test_a_deleted_root_is_created_again(ws: Workspace, root: Path) -> None:
    (root / "inside.txt").unlink()
    root.rmdir()

    assert ws.write("again.txt", "back\n") == "Created again.txt (5 bytes, 1 line)."
    assert (root / "again.txt").read_text() == "back\n"


def test_a_root_that_cannot_be_created_is_one_clear_error(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("not a directory")
    ws = Workspace(tmp_path / "file" / "ws")

    with pytest.raises(WorkspaceError, match=r"the workspace root .* cannot be used"):
        ws.listing()


# ---------------------------------------------------------------------- through an agent


@pytest.mark.parametrize(
    ("tool", "args"),
    [
        ("workspace_read", {"path": "../outside/secret.txt"}),
        ("workspace_read", {"path": "/etc/passwd"}),
        ("workspace_read", {"path": "root_link/etc/passwd"}),
        ("workspace_read", {"path": "secret_link"}),
        ("workspace_write", {"path": "../outside/secret.txt", "content": "x"}),
        ("workspace_write", {"path": "ABSOLUTE", "content": "x"}),
        ("workspace_write", {"path": "secret_link", "content": "x"}),
        ("workspace_edit", {"path": "secret_link", "old": "secret", "new": "x"}),
        ("workspace_delete", {"path": "../outside/secret.txt"}),
        ("workspace_list", {"pattern": "../outside/*"}),
        ("workspace_list", {"pattern": "/etc/*"}),
    ],
)
def test_a_model_cannot_escape_and_its_turn_goes_on(
    retinue_team: TeamHarness,
    root: Path,
    outside: Path,
    tool: str,
    args: dict[str, str],
) -> None:
    team = retinue_team
    root.mkdir()
    (root / "root_link").symlink_to("/")
    (root / "secret_link").symlink_to(outside / "secret.txt")
    before = snapshot(outside)
    agent = team.add(workspace_card("Clerk", root))
    if args.get("path") == "ABSOLUTE":
        args = {**args, "path": str(outside / "planted.txt")}

    # the same wrong call twice: a retry first, then the refusal as the tool's answer
    directive = call_directive(tool, args)
    team.say(agent, f"{directive}\n{directive}\n{send_directive('@Human', 'response', 'done')}")
    team.wait_idle(20)

    # the first answer sent the model back to try again; the second, retries spent, is final
    retry, refusal = team.tool_results("@Clerk")
    assert refusal == f"Error: {retry}"
    assert any(
        words in retry for words in ("uses '..'", "is an absolute", "leads outside the workspace")
    )
    assert [m.content for m in team.received_by("@Human")] == ["done"]
    assert snapshot(outside) == before
