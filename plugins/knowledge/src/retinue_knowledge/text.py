"""Text that agents write into the graph, made safe to show to every other agent.

Every name, type, description, property and observation is written by a model and ends up in
other agents' prompts (the context summary, search answers, `kg_show`). So:

* names, types, relation types and property keys are one line (whitespace runs become one
  space), so nothing in them can start a line of its own, such as a forged context marker;
* control and invisible format characters (bidirectional overrides, zero-width characters)
  are removed from every text;
* whatever is rendered for a reader goes through the kernel's `neutralize`, which escapes
  every message fence and pydantic-ai frame in it;
* lengths are capped where text is accepted, with an error naming the limit, so a model
  learns to write shorter instead of seeing its words cut.
"""

from __future__ import annotations

import re

from retinue_knowledge.errors import KnowledgeError

MAX_NAME = 100
"""The longest entity name, in characters."""
MAX_TYPE = 50
"""The longest entity or relation type."""
MAX_DESCRIPTION = 2000
MAX_OBSERVATION = 1000
MAX_PROPERTY_KEY = 50
MAX_PROPERTY_VALUE = 500
MAX_QUERY = 500

_INVISIBLE = re.compile(
    r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]"
)
_WHITESPACE = re.compile(r"\s+")
_MANY_BLANK_LINES = re.compile(r"\n{3,}")


def one_line(text: str) -> str:
    """`text` as one line: invisible characters gone, whitespace runs folded to a space."""
    return _WHITESPACE.sub(" ", _INVISIBLE.sub("", text)).strip()


def block(text: str) -> str:
    """`text` as a block of lines (at most one blank line in a row), invisibles removed."""
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    text = _INVISIBLE.sub("", text.replace("\u2028", "\n").replace("\u2029", "\n"))
    lines = "\n".join(line.rstrip() for line in text.split("\n"))
    return _MANY_BLANK_LINES.sub("\n\n", lines).strip()


def checked(what: str, text: str, limit: int, *, required: bool = False) -> str:
    """`text` itself, or a `KnowledgeError` saying it is empty or how long it is."""
    if required and not text:
        raise KnowledgeError(f"{what} is empty; give one")
    if len(text) > limit:
        raise KnowledgeError(f"{what} is {len(text):,} characters long; the most is {limit:,}")
    return text


def shorten(text: str, limit: int) -> str:
    """`text` cut to `limit` characters with an ellipsis, for one-line previews."""
    return text if len(text) <= limit else text[: max(0, limit - 1)].rstrip() + "…"


def quoted(text: str, limit: int = 60) -> str:
    """`text` as one short quoted line, for error messages."""
    return repr(shorten(one_line(text), limit))


def neutralize(text: str) -> str:
    """`text` with every message fence and pydantic-ai frame escaped (`<` becomes `&lt;`).

    The kernel's, imported on first use so that discovering the plugin loads no model stack.
    """
    if "<" not in text:
        return text
    from retinue.kit import neutralize as kernel_neutralize

    return kernel_neutralize(text)
