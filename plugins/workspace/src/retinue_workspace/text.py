"""How the workspace shows a file's content to a model: text or binary, numbered lines, sizes.

Pure functions of bytes and strings, apart from the file operations (`files.Workspace`) that
use them: what counts as text (UTF-8 without NUL bytes), how lines are numbered and cut, and
the one-line description of a file that is not text.
"""

from __future__ import annotations

from retinue_workspace.errors import WorkspaceError
from retinue_workspace.images import sniff_image

MAX_LINE_CHARS = 2000
"""Longer lines are cut when shown, so one minified file cannot fill a whole read."""
BINARY_SNIFF_BYTES = 8192
"""How much of a file is looked at for a NUL byte before it is taken for text."""


def encode_text(text: str) -> bytes:
    """`text` as UTF-8; a lone surrogate (which UTF-8 cannot hold) is refused, not mangled."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise WorkspaceError(
            f"the text holds a character UTF-8 cannot store ({exc.object[exc.start]!r} at "
            f"position {exc.start}); nothing was written"
        ) from None


def as_text(data: bytes) -> str | None:
    """The UTF-8 text in `data`, or None for binary content (a NUL byte or invalid UTF-8)."""
    if b"\x00" in data[:BINARY_SNIFF_BYTES]:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def describe_binary(path: str, data: bytes) -> str:
    """What a model is told about a file that is not text."""
    media_type = sniff_image(data[:16])
    if media_type is not None:
        return (
            f"{path} is an image ({media_type}, {human_size(len(data))}), not text. A message "
            f"that mentions !!{path} shows it to the agent who receives that message."
        )
    return f"{path} is a binary file ({human_size(len(data))}), not text; it is not shown."


def split_lines(text: str) -> list[str]:
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line.removesuffix("\r") for line in lines]


def line_count(text: str) -> str:
    count = len(split_lines(text))
    return "1 line" if count == 1 else f"{count} lines"


def number_lines(path: str, text: str, offset: int, limit: int, max_chars: int) -> str:
    lines = split_lines(text)
    total = len(lines)
    if total == 0:
        return f"{path} is empty."
    if offset >= total:
        raise WorkspaceError(
            f"{path} has {total} line{'s' if total != 1 else ''}; offset {offset} is past its end"
        )
    shown: list[str] = []
    used = 0
    end = offset
    for number in range(offset, min(total, offset + limit)):
        line = lines[number]
        if len(line) > MAX_LINE_CHARS:
            line = line[:MAX_LINE_CHARS] + f" [... line cut at {MAX_LINE_CHARS} characters]"
        row = f"{number + 1:>6}\t{line}"
        if shown and used + len(row) + 1 > max_chars:
            break
        shown.append(row)
        used += len(row) + 1
        end = number + 1
    heading = f"{path}, lines {offset + 1}-{end} of {total}"
    if end < total:
        heading += f" (read on with offset={end})"
    return heading + ":\n" + "\n".join(shown)


def human_size(size: int) -> str:
    """`512 bytes`, `4.0 KB`, `12.3 MB`: sizes as a person reads them."""
    if size < 1024:
        return "1 byte" if size == 1 else f"{size} bytes"
    value = float(size)
    for unit in ("KB", "MB", "GB"):
        value /= 1024
        if value < 1024 or unit == "GB":
            return f"{value:.1f} {unit}"
    return f"{size} bytes"  # pragma: no cover - unreachable
