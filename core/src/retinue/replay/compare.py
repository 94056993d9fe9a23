"""A request as a replay compares it: what legitimately differs run to run taken out.

Two requests are the same when the agent sent its model the same instructions and added the
same parts to the conversation since its previous answer (the earlier part of the
conversation is the earlier turns, already compared). Left out: timestamps, run and
conversation ids, the date in the agent's identity line, credentials in addresses (a
cassette has them redacted), the notices of mail that arrived while a run was working (which
mail arrives when is timing), and tool call ids, which are numbered in order of appearance.

The forms compared are lines of text, one a part, so a difference reads as a diff.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Iterable, Sequence
from typing import Any

from retinue.actors.redaction import redact_credentials
from retinue.agent.cancel import is_arrival_notice

#: Keys of a message or a part whose values differ on every run.
VOLATILE = frozenset(
    {"timestamp", "request_timestamp", "duration", "run_id", "conversation_id", "id"}
)

_TODAY = re.compile(r"(; today is )\d{4}-\d{2}-\d{2}")


def stable(value: dict[str, Any]) -> dict[str, Any]:
    """A message or a part (JSON form) without its volatile keys; what it holds is kept as
    it is (a tool's arguments may well have an `id`)."""
    return {key: item for key, item in value.items() if key not in VOLATILE}


def instructions_form(instructions: str | None) -> str:
    """The instructions, with the day they were sent taken out."""
    return _TODAY.sub(r"\1<date>", redact_credentials(instructions or ""))


def request_lines(parts: Iterable[dict[str, Any]]) -> list[str]:
    """One line per part: its kind, its tool if any, and its content as JSON."""
    ids: dict[str, str] = {}
    lines = []
    for part in parts:
        if isinstance(part.get("content"), str) and is_arrival_notice(part["content"]):
            continue
        shown = stable(redact_credentials(part))
        call_id = shown.pop("tool_call_id", None)
        if isinstance(call_id, str):
            shown["tool_call"] = ids.setdefault(call_id, f"call-{len(ids) + 1}")
        kind = shown.pop("part_kind", "?")
        tool = shown.pop("tool_name", None)
        head = f"{kind} {tool}" if tool else kind
        lines.append(f"{head}: {json.dumps(shown, sort_keys=True, ensure_ascii=False)}")
    return lines


def first_difference(recorded: Sequence[str], replayed: Sequence[str]) -> str | None:
    """None when equal; else a short unified diff from the first differing line on."""
    if list(recorded) == list(replayed):
        return None
    diff = difflib.unified_diff(
        list(recorded), list(replayed), "recorded", "replayed", n=1, lineterm=""
    )
    lines = list(diff)
    removed = next((line for line in lines[2:] if line.startswith("-")), "")
    added = next((line for line in lines[2:] if line.startswith("+")), "")
    pairs = zip(removed[1:], added[1:], strict=False)
    where = next((i for i, (a, b) in enumerate(pairs) if a != b), len(removed) - 1)
    return "\n".join(_around(line, where) for line in lines[:12])


#: How much of a long line a diff shows, and how much of it before the first difference.
SHOWN, BEFORE = 400, 120


def _around(line: str, where: int) -> str:
    """`line` cut to `SHOWN` characters around column `where` of its text (after the diff's
    one-character mark), so two long lines that differ late still show where they differ."""
    if len(line) <= SHOWN:
        return line
    start = max(0, min(where - BEFORE, len(line) - 1 - SHOWN))
    end = 1 + start + SHOWN
    before, after = "..." if start else "", "..." if end < len(line) else ""
    return f"{line[0]}{before}{line[1 + start : end]}{after}"
