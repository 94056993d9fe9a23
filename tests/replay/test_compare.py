"""A diff of two long request lines shows where they differ, not their common start."""

from __future__ import annotations

from retinue.replay.compare import SHOWN, first_difference


def test_two_long_lines_differing_late_are_shown_around_their_difference() -> None:
    common = "board: " + "x" * 2000
    diff = first_difference([common + " T1 todo; tail"], [common + " (none); tail"])

    assert diff is not None
    removed, added = (line for line in diff.splitlines()[2:] if line[:1] in "-+")
    assert "T1 todo" in removed and "(none)" in added
    assert removed.startswith("-...") and len(removed) <= SHOWN + 8


def test_short_lines_are_shown_whole() -> None:
    diff = first_difference(["a", "b"], ["a", "c"])

    assert diff is not None and "-b" in diff.splitlines() and "+c" in diff.splitlines()
