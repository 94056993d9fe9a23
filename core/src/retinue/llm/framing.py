"""The fence around other parties' text in a prompt, so content cannot speak for the kernel.

A message's content is the sender's words; who sent it and with which intent are the
kernel's. The kernel writes them as attributes of a `<retinue_message>` element around the
content, through pydantic-ai's public framing API: the tag is registered with
`pydantic_ai.framing.register_tag`, and `neutralize_tags` escapes the `<` of every spelling
of it (and of pydantic-ai's own frames) inside the body; the attributes are HTML-escaped.
No content can therefore close the element early or open one of its own, and the only
unescaped opening tags in a prompt are the kernel's.

Registering happens when this module is imported, which every agent does before its first
run, as pydantic-ai asks (a tag registered later changes how earlier text escapes).
"""

from __future__ import annotations

import html
import re
from typing import NamedTuple

from pydantic_ai.framing import neutralize_tags, register_tag

MESSAGE_TAG = register_tag("retinue_message")
"""The element a message's content is shown in; its attributes are written by the kernel."""

_FENCE = re.compile(
    rf'<{MESSAGE_TAG} sender="(?P<sender>[^"]*)" intent="(?P<intent>[^"]*)">\n'
    rf"(?P<body>.*?)\n</{MESSAGE_TAG}>",
    re.DOTALL,
)


class Fenced(NamedTuple):
    """One fenced message found in a prompt: what the kernel wrote around it, and its body."""

    sender: str
    intent: str
    body: str


def fence(body: str, *, sender: str, intent: str) -> str:
    """`body` inside a `<retinue_message>` element naming its sender and intent.

    The same text as `pydantic_ai.framing.wrap(MESSAGE_TAG, ...)` renders, with the opening
    tag written here: its attribute names are fixed, and checking them on every message
    would cost more than the rest of the prompt (the body still goes through pydantic-ai's
    `neutralize_tags`, which is what makes the fence hold).
    """
    opening = f'<{MESSAGE_TAG} sender="{html.escape(sender)}" intent="{html.escape(intent)}">'
    return f"{opening}\n{neutralize_tags(body)}\n</{MESSAGE_TAG}>"


def neutralize(text: str) -> str:
    """`text` with every message fence (and pydantic-ai frame) in it escaped.

    For kernel text that quotes other parties without fencing them, such as a context-update
    block listing what agents wrote: a fence inside it is then plain text.
    """
    return neutralize_tags(text) if "<" in text else text


def find_fences(text: str) -> list[Fenced]:
    """Every fence the kernel wrote in `text`, in order; the bodies as the model reads them.

    A body keeps the escaping `fence` applied (`&lt;retinue_message ...`), so what a reader
    gets is exactly what the model was shown.
    """
    if f"<{MESSAGE_TAG} " not in text:
        return []
    return [
        Fenced(html.unescape(m["sender"]), html.unescape(m["intent"]), m["body"])
        for m in _FENCE.finditer(text)
    ]
