"""Text that agents write into the graph, made safe to show to every other agent.

Every name, type, description, property and observation is written by a model and ends up in
other agents' prompts (the context summary, search answers, `kg_show`). So:

* names, types, relation types and property keys are one line (`retinue.kit.clean_line`),
  so nothing in them can start a line of its own, such as a forged context marker; other
  texts keep their lines (`clean_block`); both remove control and invisible format
  characters (bidirectional overrides, zero-width characters);
* whatever is rendered for a reader goes through the kernel's `neutralize`, which escapes
  every message fence and pydantic-ai frame in it;
* lengths are capped where text is accepted, with an error naming the limit, so a model
  learns to write shorter instead of seeing its words cut.
"""

from __future__ import annotations

from retinue.kit import clean_line

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
    return repr(shorten(clean_line(text), limit))


def neutralize(text: str) -> str:
    """`text` with every message fence and pydantic-ai frame escaped (`<` becomes `&lt;`).

    The kernel's, imported on first use so that discovering the plugin loads no model stack.
    """
    if "<" not in text:
        return text
    from retinue.kit import neutralize as kernel_neutralize

    return kernel_neutralize(text)
