"""A tool result as the model is shown it: at most `max_result_chars` of text.

A server decides how much it answers; a 30 MB page would reach the model whole and spend
the run's context (and its money) on one call. Text beyond the cap is cut, and the model is
told in one short line so it can ask for less: `[cut: 30,000,000 chars, showing the first
100,000]`. A structured result is measured as the JSON the model would read; media parts
(images, audio) are kept as they are.
"""

from __future__ import annotations

from typing import Any

import pydantic_core
from pydantic_ai.messages import BinaryContent


def capped(result: Any, limit: int) -> Any:
    """`result`, or its first `limit` characters of text with a line saying it was cut."""
    if isinstance(result, BinaryContent):
        return result
    if isinstance(result, list) and any(isinstance(part, BinaryContent) for part in result):
        parts, left = [], limit  # text and media together: the text shares one budget
        for part in result:
            parts.append(capped(part, left))
            left = max(0, left - (0 if isinstance(part, BinaryContent) else len(_text(part))))
        return parts
    text = _text(result)
    if len(text) <= limit:
        return result
    return f"{text[:limit]}\n[cut: {len(text):,} chars, showing the first {limit:,}]"


def _text(result: Any) -> str:
    return result if isinstance(result, str) else pydantic_core.to_json(result).decode()
