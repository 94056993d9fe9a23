"""The fence around other parties' text in a prompt, so content cannot speak for the kernel.

A message's content is the sender's words; who sent it and with which intent are the
kernel's. The kernel writes them in one line right before a `<message>` element around the
content, through pydantic-ai's public framing API: the tag is registered with
`pydantic_ai.framing.register_tag`, and `neutralize_tags` escapes the `<` of every spelling
of it (and of pydantic-ai's own frames) inside the body. No content can therefore close the
element early or open one of its own: the only unescaped `<message>` tags in a prompt are
the kernel's, and so is the line before each.

Registering happens when this module is imported, which every agent does before its first
run, as pydantic-ai asks (a tag registered later changes how earlier text escapes).
"""

from __future__ import annotations

import re
from typing import NamedTuple

from pydantic_ai.framing import neutralize_tags, register_tag

MESSAGE_TAG = register_tag("message")
"""The element a message's content is shown in; the line before it is the kernel's."""

_FRAME = re.compile(
    rf"(?:^|\n)(?P<header>[^\n]*)\n<{MESSAGE_TAG}>\n(?P<body>.*?)\n</{MESSAGE_TAG}>",
    re.DOTALL,
)


class Framed(NamedTuple):
    """One fenced message found in a prompt: the kernel's line before it, and its body."""

    header: str
    body: str


def fence(body: str, *, header: str) -> str:
    """The kernel's `header` line, then `body` inside a `<message>` element.

    The element is what `pydantic_ai.framing.wrap(MESSAGE_TAG, ...)` renders; the body goes
    through pydantic-ai's `neutralize_tags`, which is what makes the fence hold, and so does
    the header (it names a sender, whose name is not the kernel's to trust).
    """
    return f"{neutralize(header)}\n<{MESSAGE_TAG}>\n{neutralize_tags(body)}\n</{MESSAGE_TAG}>"


def neutralize(text: str) -> str:
    """`text` with every message fence (and pydantic-ai frame) in it escaped.

    For kernel text that quotes other parties without fencing them, such as a context-update
    block listing what agents wrote: a fence inside it is then plain text.
    """
    return neutralize_tags(text) if "<" in text else text


def find_frames(text: str) -> list[Framed]:
    """Every fence the kernel wrote in `text`, in order; the bodies as the model reads them.

    A body keeps the escaping `fence` applied (`&lt;message>`), so what a reader gets is
    exactly what the model was shown. Only the kernel can write an unescaped `<message>`
    tag, so the line before one is always the kernel's.
    """
    if f"<{MESSAGE_TAG}>" not in text:
        return []
    return [Framed(m["header"], m["body"]) for m in _FRAME.finditer(text)]
