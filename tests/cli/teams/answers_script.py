"""The scripted model of answers.toml: "long" gets a 40-line answer of about 3,000
characters; "escapes" an answer carrying a window-title (OSC) sequence, a clear-screen and
colour codes; "markdown" an answer in Markdown (a list, emphasis, code, a line break inside a
paragraph); anything else is quoted back."""

from __future__ import annotations

from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models.function import AgentInfo
from retinue.testing import incoming, send

#: Each line distinct and plain (no Markdown marks): 40 lines, 3,039 characters with newlines.
LONG_LINES = [
    f"Line {n:02d} of the long answer, kept as it was written: " + "w" * 23 for n in range(1, 41)
]
LONG = "\n".join(LONG_LINES)

MARKDOWN = (
    "Here is the plan:\n"
    "kept on its own line\n\n"
    "- **first** step\n"
    "- `second` step\n\n"
    "```\nrun --fast\n```"
)

HOSTILE = "\x1b]0;pwned\x07title \x1b[2Jcleared \x1b[31mred\x1b[0m plain"


def answer(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
    got = incoming(messages)
    if "long" in got.content:
        text = LONG
    elif "markdown" in got.content:
        text = MARKDOWN
    elif "escapes" in got.content:
        text = HOSTILE
    else:
        text = f"You said: {got.content}"
    return send(info, (got.sender, "response", text))
