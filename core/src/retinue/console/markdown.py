"""Markdown for answers at a terminal, with the writer's line breaks kept.

A model's answer is written to be read as it is: a line break in it is meant, even where
Markdown would join the two lines into one paragraph. So every soft break is shown as a
hard one, as chat frontends (GitHub comments, most chat UIs) do.
"""

from __future__ import annotations

from typing import Any

from rich.markdown import Markdown


class LineMarkdown(Markdown):
    """`rich.markdown.Markdown` whose soft line breaks stay line breaks."""

    def __init__(self, markup: str, **options: Any) -> None:
        super().__init__(markup, **options)
        for token in self.parsed:
            for child in token.children or ():
                if child.type == "softbreak":
                    child.type = "hardbreak"
