"""The five operations on a real directory: what each answers, and each limit."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest
from retinue_workspace import Workspace, WorkspaceError, WorkspaceNotFoundError
from retinue_workspace.files import TEMP_PREFIX
from retinue_workspace.text import MAX_LINE_CHARS
from workspace_scripts import png


@pytest.fixture
def ws(root: Path) -> Workspace:
    return Workspace(root)


# ---------------------------------------------------------------------- read


def test_a_read_numbers_the_lines(ws: Workspace) -> None:
    ws.write("notes.txt", "alpha\nbeta\r\ngamma")

    assert ws.read("notes.txt") == (
        "notes.txt, lines 1-3 of 3:\n     1\talpha\n     2\tbeta\n     3\tgamma"
    )


def test_a_read_pages_with_offset_and_limit(ws: Workspace) -> None:
    ws.write("long.txt", "".join(f"line {n}\n" for n in range(1, 11)))

    assert ws.read("long.txt", offset=2, limit=3) == (
        "long.txt, lines 3-5 of 10 (read on with offset=5):\n"
        "     3\tline 3\n     4\tline 4\n     5\tline 5"
    )
    assert ws.read("long.txt", offset=9).startswith("long.txt, lines 10-10 of 10:")
    with pytest.raises(WorkspaceError, match=r"has 10 lines; offset 10 is past its end"):
        ws.read("long.txt", offset=10)
    with pytest.raises(WorkspaceError, match=r"offset must be 0 or more"):
        ws.read("long.txt", offset=-1)
    with pytest.raises(WorkspaceError, match=r"limit must be 1 or more"):
        ws.read("long.txt", limit=0)


def test_a_read_stops_at_the_character_limit_and_says_where_to_go_on(root: Path) -> None:
    ws = Workspace(root, max_read_chars=50)
    ws.write("long.txt", "".join(f"line number {n}\n" for n in range(1, 11)))

    shown = ws.read("long.txt")

    assert shown.startswith("long.txt, lines 1-2 of 10 (read on with offset=2):")
    assert len(shown.split(":\n", 1)[1]) <= 50


def test_a_very_long_line_is_cut(ws: Workspace) -> None:
    ws.write("min.js", "x" * (MAX_LINE_CHARS + 500))

    shown = ws.read("min.js")

    assert shown.endswith(f"[... line cut at {MAX_LINE_CHARS} characters]")
    assert len(shown) < MAX_LINE_CHARS + 200


def test_an_empty_file_says_so(ws: Workspace) -> None:
    ws.write("empty.txt", "")

    assert ws.read("empty.txt") == "empty.txt is empty."


def test_binary_files_are_described_not_dumped(ws: Workspace, root: Path) -> None:
    root.mkdir(exist_ok=True)
    (root / "shot.png").write_bytes(png())
    (root / "blob.bin").write_bytes(b"\x00\x01\x02" * 100)
    (root / "latin1.txt").write_bytes("café".encode("latin-1"))

    assert ws.read("shot.png") == (
        f"shot.png is an image (image/png, {len(png())} bytes), not text. A message that "
        "mentions !!shot.png shows it to the agent who receives that message."
    )
    assert (
        ws.read("blob.bin") == "blob.bin is a binary file (300 bytes), not text; it is not shown."
    )
    assert ws.read("latin1.txt").startswith("latin1.txt is a binary file")


def test_a_missing_file_or_directory_is_named(ws: Workspace) -> None:
    with pytest.raises(WorkspaceNotFoundError, match=r"there is no nope.txt in the workspace"):
        ws.read("nope.txt")
    with pytest.raises(WorkspaceNotFoundError, match=r"there is no directory sub in the workspace"):
        ws.read("sub/nope.txt")


def test_a_directory_is_not_read_as_a_file(ws: Workspace) -> None:
    ws.write("docs/a.md", "a")

    with pytest.raises(WorkspaceError, match=r"docs is a directory; list it with .*'docs/\*'"):
        ws.read("docs")


def test_a_file_larger_than_the_limit_is_not_read(root: Path) -> None:
    ws = Workspace(root, max_file_bytes=100)
    root.mkdir()
    (root / "big.txt").write_text("x" * 101)

    with pytest.raises(
        WorkspaceError, match=r"big.txt holds 101 bytes; this workspace reads files"
    ):
        ws.read("big.txt")


# ---------------------------------------------------------------------- write


def test_a_write_creates_directories_and_reports_what_it_did(ws: Workspace, root: Path) -> None:
    assert ws.write("a/b/c.txt", "one\ntwo\n") == "Created a/b/c.txt (8 bytes, 2 lines)."
    assert ws.write("a/b/c.txt", "three\n") == "Replaced a/b/c.txt (6 bytes, 1 line)."

    assert (root / "a" / "b" / "c.txt").read_text() == "three\n"


def test_a_write_leaves_no_temporary_file_and_keeps_the_mode(ws: Workspace, root: Path) -> None:
    ws.write("run.sh", "echo hi\n")
    os.chmod(root / "run.sh", 0o755)

    ws.write("run.sh", "echo bye\n")

    assert os.listdir(root) == ["run.sh"]
    assert stat.S_IMODE(os.stat(root / "run.sh").st_mode) == 0o755


def test_a_write_over_the_size_limit_is_refused(root: Path) -> None:
    ws = Workspace(root, max_file_bytes=10)

    with pytest.raises(WorkspaceError, match=r"the content is 11 bytes; files in this workspace"):
        ws.write("big.txt", "x" * 11)
    assert not (root / "big.txt").exists()


def test_a_write_onto_a_directory_or_through_a_file_is_refused(ws: Workspace) -> None:
    ws.write("docs/a.md", "a")

    with pytest.raises(WorkspaceError, match=r"docs is a directory"):
        ws.write("docs", "x")
    with pytest.raises(WorkspaceError, match=r"docs/a.md is a file, not a directory"):
        ws.write("docs/a.md/b.md", "x")


def test_text_utf8_cannot_hold_is_refused_not_mangled(ws: Workspace, root: Path) -> None:
    with pytest.raises(WorkspaceError, match=r"UTF-8 cannot store \('\\ud800' at position 2\)"):
        ws.write("odd.txt", "ab\ud800")
    ws.write("ok.txt", "é ✓")
    with pytest.raises(WorkspaceError, match="nothing was written"):
        ws.edit("ok.txt", "✓", "\udfff")
    assert sorted(os.listdir(root)) == ["ok.txt"]
    assert (root / "ok.txt").read_text() == "é ✓"


def test_temporary_names_are_reserved(ws: Workspace) -> None:
    with pytest.raises(WorkspaceError, match=r"reserved"):
        ws.write(f"{TEMP_PREFIX}x", "x")


# ---------------------------------------------------------------------- edit


def test_an_edit_replaces_the_one_occurrence(ws: Workspace, root: Path) -> None:
    ws.write("plan.md", "# Plan\n- draft\n- review\n")

    assert ws.edit("plan.md", "- review", "- ship") == (
        "Edited plan.md: replaced one occurrence at line 3."
    )
    assert (root / "plan.md").read_text() == "# Plan\n- draft\n- ship\n"


def test_an_edit_with_no_or_several_occurrences_is_refused(ws: Workspace, root: Path) -> None:
    ws.write("plan.md", "todo\ntodo\n")

    with pytest.raises(WorkspaceError, match=r"does not occur in plan.md"):
        ws.edit("plan.md", "done", "x")
    with pytest.raises(WorkspaceError, match=r"occurs 2 times in plan.md; include more"):
        ws.edit("plan.md", "todo", "x")
    with pytest.raises(WorkspaceError, match=r"the text to replace is empty"):
        ws.edit("plan.md", "", "x")
    assert (root / "plan.md").read_text() == "todo\ntodo\n"


def test_an_edit_of_a_binary_file_is_refused(ws: Workspace, root: Path) -> None:
    root.mkdir(exist_ok=True)
    (root / "shot.png").write_bytes(png())

    with pytest.raises(WorkspaceError, match=r"shot.png is not a text file"):
        ws.edit("shot.png", "PNG", "JPG")


# ---------------------------------------------------------------------- delete


def test_delete_takes_files_and_empty_directories_only(ws: Workspace, root: Path) -> None:
    ws.write("docs/a.md", "a")

    with pytest.raises(WorkspaceError, match=r"docs is a directory that is not empty"):
        ws.delete("docs")
    assert ws.delete("docs/a.md") == "Deleted docs/a.md."
    assert ws.delete("docs") == "Deleted the empty directory docs."
    with pytest.raises(WorkspaceNotFoundError, match=r"there is no docs"):
        ws.delete("docs")
    assert os.listdir(root) == []


# ---------------------------------------------------------------------- list


def test_a_listing_is_sorted_with_sizes_and_follows_glob_rules(ws: Workspace) -> None:
    ws.write("b.md", "bb")
    ws.write("a.txt", "a")
    ws.write("docs/guide.md", "guide")
    ws.write("docs/deep/more.md", "more")
    ws.write(".hidden", "h")

    assert str(ws.listing()) == (
        "7 entries match '**/*':\n"
        ".hidden (1 byte)\n"
        "a.txt (1 byte)\n"
        "b.md (2 bytes)\n"
        "docs/\n"
        "docs/deep/\n"
        "docs/deep/more.md (4 bytes)\n"
        "docs/guide.md (5 bytes)"
    )
    assert [e.path for e in ws.listing("*.md").entries] == ["b.md"]
    assert [e.path for e in ws.listing("**/*.md").entries] == [
        "b.md",
        "docs/deep/more.md",
        "docs/guide.md",
    ]
    assert [e.path for e in ws.listing("docs/*").entries] == ["docs/deep", "docs/guide.md"]
    assert [e.path for e in ws.listing("?.txt").entries] == ["a.txt"]
    assert [e.path for e in ws.listing("[ab].*").entries] == ["a.txt", "b.md"]
    assert [e.path for e in ws.listing("[!a]*.md").entries] == ["b.md"]
    assert str(ws.listing("*.py")) == "Nothing in the workspace matches '*.py'."


def test_a_listing_is_capped_and_says_how_many_more(root: Path) -> None:
    ws = Workspace(root, max_list_entries=3)
    for n in range(10):
        ws.write(f"f{n}.txt", "x")

    listing = ws.listing("*.txt")

    assert [e.path for e in listing.entries] == ["f0.txt", "f1.txt", "f2.txt"]
    assert listing.total == 10
    assert str(listing).endswith("... and 7 more; give a narrower pattern to see them.")


def test_an_empty_workspace_says_so(ws: Workspace) -> None:
    assert str(ws.listing()) == "The workspace is empty."
    assert str(ws.listing("")) == "The workspace is empty."
