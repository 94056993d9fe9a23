"""Markdown for answers at a terminal, with the writer's line breaks and indents kept.

A model's answer is written to be read as it is: a line break in it is meant, even where
Markdown would join the two lines into one paragraph. So every soft break is shown as a
hard one, as chat frontends (GitHub comments, most chat UIs) do, and the line after it keeps
its indent (a list of waiting calls written as `  [1] ...` under a line of text).
"""

from __future__ import annotations

from typing import Any

from markdown_it.token import Token
from rich.markdown import Markdown


class LineMarkdown(Markdown):
    """`rich.markdown.Markdown` whose soft line breaks stay line breaks, indents kept."""

    def __init__(self, markup: str, **options: Any) -> None:
        super().__init__(markup, **options)
        for token in self.parsed:
            if token.children:
                token.children = _kept_lines(token.content, token.children)


def _kept_lines(source: str, children: list[Token]) -> list[Token]:
    """The inline tokens of a paragraph with each soft break made hard and the next line's
    indent (which Markdown drops) put back before it."""
    indents = [len(line) - len(line.lstrip(" ")) for line in source.split("\n")[1:]]
    kept: list[Token] = []
    line = 0
    for child in children:
        kept.append(child)
        if child.type not in ("softbreak", "hardbreak"):
            continue
        child.type = "hardbreak"
        indent = indents[line] if line < len(indents) else 0
        line += 1
        if indent:
            kept.append(Token("text", "", 0, content=" " * indent))
    return kept
