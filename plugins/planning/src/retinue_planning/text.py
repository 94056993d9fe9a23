"""Text that agents write onto the board, made safe to show to every other agent.

Titles, descriptions and notes written by one agent end up in other agents' prompts (the
context summary, tool answers, command results). Three rules keep them inside the kernel's
fence rules:

* a title is one line (`retinue.kit.clean_line`), so nothing it holds can start a line of
  its own, such as a forged context-update marker; descriptions and notes keep their lines
  (`clean_block`);
* control characters and invisible format characters (bidirectional overrides, zero-width
  characters) are removed from both, so what a reader sees is what was written;
* whatever is rendered for a reader goes through `neutralize`, which escapes every message
  fence and pydantic-ai frame in it, so board text never passes for a message.

Lengths are capped where the text is accepted (`check_length`), with an error naming the
limit, so a model learns to write shorter instead of seeing its words cut.
"""

from __future__ import annotations

from retinue_planning.errors import PlanningError

MAX_TITLE = 200
"""The longest title, in characters (after whitespace is folded)."""
MAX_DESCRIPTION = 4000
"""The longest description."""
MAX_NOTE = 2000
"""The longest note."""


def check_length(what: str, text: str, limit: int) -> str:
    """`text` itself, or a `PlanningError` saying how long it is and what the limit is."""
    if len(text) > limit:
        raise PlanningError(
            f"{what} is {len(text):,} characters long; the most is {limit:,} "
            "(put the details in a note or a shorter description)"
        )
    return text


def shorten(text: str, limit: int) -> str:
    """`text` cut to `limit` characters with an ellipsis, for one-line previews."""
    return text if len(text) <= limit else text[: max(0, limit - 1)].rstrip() + "…"


def neutralize(text: str) -> str:
    """`text` with every message fence and pydantic-ai frame escaped (`<` becomes `&lt;`).

    The kernel's `neutralize` (`retinue.kit`), imported on first use, so that discovering
    the plugin does not load the model stack.
    """
    if "<" not in text:
        return text
    from retinue.kit import neutralize as kernel_neutralize

    return kernel_neutralize(text)
