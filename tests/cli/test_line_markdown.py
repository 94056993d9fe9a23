"""An answer rendered as Markdown at a terminal keeps the writer's line breaks and indents."""

from __future__ import annotations

import io

from retinue.console.markdown import LineMarkdown
from rich.console import Console


def rendered(text: str) -> list[str]:
    out = io.StringIO()
    Console(file=out, width=60, color_system=None).print(LineMarkdown(text))
    return [line.rstrip() for line in out.getvalue().splitlines()]


def test_a_line_break_stays_and_an_indented_line_keeps_its_indent() -> None:
    assert rendered("Waiting:\n  [1] write(a)\n    [2] **delete**(b)\nthat is all") == [
        "Waiting:",
        "  [1] write(a)",
        "    [2] delete(b)",
        "that is all",
    ]


def test_markdown_blocks_are_still_markdown() -> None:
    assert rendered("- first\n  second\n\n1. one\n\nline  \n  after a hard break") == [
        "",
        " • first",
        "   second",  # a list item's own indent is the list's, not added twice
        "",
        " 1 one",
        "",
        "line",
        "  after a hard break",
    ]
