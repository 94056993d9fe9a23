"""What a model reads of a command it ran: how it ended, then its output, fenced and bounded.

A command's output is anyone's words (a file it printed, a page it fetched earlier), so it
goes out inside a `<command_output>` element whose body cannot close it or open a frame of
the kernel's (pydantic-ai's `wrap` escapes them), with terminal control characters removed.
What did not fit is said, with how much there was.
"""

from __future__ import annotations

import re
import signal

from pydantic_ai.framing import register_tag, wrap

from retinue_workspace.sandbox import Limits, Outcome
from retinue_workspace.text import human_size

OUTPUT_TAG = register_tag("command_output")
"""The element a command's output is shown in."""

_CONTROL = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|[\x00-\x08\x0b-\x1f\x7f]")


def describe(outcome: Outcome, limits: Limits, committed: str | None) -> str:
    """The model's answer for one run."""
    lines = [_ending(outcome, limits)]
    body = _text(outcome.head)
    if outcome.total_bytes > len(outcome.head) + len(outcome.tail):
        left_out = outcome.total_bytes - len(outcome.head) - len(outcome.tail)
        body += f"\n[... {human_size(left_out)} of output cut here ...]\n" + _text(outcome.tail)
        lines.append(
            f"Output cut: {human_size(outcome.total_bytes)} in all; its start and end are shown."
        )
    else:
        body += _text(outcome.tail)
    if committed:
        lines.append(f"Its changes to the workspace are commit {committed}.")
    if not outcome.total_bytes:
        return "\n".join([*lines, "(no output)"])
    return "\n".join(lines) + "\n" + wrap(OUTPUT_TAG, body)


def _ending(outcome: Outcome, limits: Limits) -> str:
    took = f"after {outcome.seconds:.1f} s"
    if outcome.timed_out:
        return f"Killed at the time limit ({limits.seconds} s)."
    status = outcome.status
    if status is None or status == 0:
        return f"Exit status 0 {took}."
    if status > 128 and (name := _signal_name(status - 128)) is not None:
        why = {
            "SIGXCPU": "its CPU-time limit",
            "SIGKILL": "its CPU-time or memory limit, or the system",
            "SIGXFSZ": f"its file-size limit ({human_size(limits.file_bytes)})",
        }.get(name)
        if name in ("SIGSEGV", "SIGABRT", "SIGBUS"):
            why = f"often memory running out (the limit: {human_size(limits.memory_bytes)})"
        return f"Killed by {name} {took}" + (f": {why}." if why else ".")
    return f"Exit status {status} {took}."


def _signal_name(number: int) -> str | None:
    try:
        return signal.Signals(number).name
    except ValueError:
        return None


def _text(data: bytes) -> str:
    return _CONTROL.sub("", data.decode("utf-8", "replace").replace("\r\n", "\n"))
