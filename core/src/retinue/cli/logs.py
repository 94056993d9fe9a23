"""The command's logging: retinue's loggers, one line a record, where the person looks.

`-v` shows retinue's INFO lines (what the team does), `-vv` DEBUG (tracebacks included);
`--log-level` names the level outright. Other libraries' records show from WARNING up.
While a console is on screen the lines go through it, so they appear above its status line
and prompt instead of tearing through them; and since it shows the team's record, the INFO
lines that only repeat that record (each delivery, each hire, each run's end) are left out:
`-v` adds detail, never the same news twice. Every line is escaped for the terminal.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable

from retinue.console.text import clean

#: The loggers whose INFO lines are the team's record told again: a console shows them.
RECORD_ECHOES = frozenset(
    {"retinue.actors.system", "retinue.team.orchestrator", "retinue.llm.run_report"}
)


def _ours(record: logging.LogRecord) -> bool:
    name = record.name
    return name == "retinue" or name.startswith(("retinue.", "retinue_"))


class LineHandler(logging.Handler):
    """Each record as one line, handed to `write` (a console, or stderr as it is now)."""

    def __init__(self, level: int, write: Callable[[str, int], None] | None = None) -> None:
        super().__init__(logging.DEBUG)
        self.threshold = level
        self.write = write
        #: Set while a console or a transcript shows the record: its echoes are left out.
        self.shows_record = False

    def filter(self, record: logging.LogRecord) -> bool:
        floor = self.threshold if _ours(record) else max(self.threshold, logging.WARNING)
        if self.shows_record and record.levelno <= logging.INFO and record.name in RECORD_ECHOES:
            return False
        return record.levelno >= floor

    def emit(self, record: logging.LogRecord) -> None:
        try:
            line = f"{record.levelname.lower()}: {record.getMessage()}"
            if record.exc_info:
                line += "\n" + _FORMATTER.formatException(record.exc_info)
            line = clean(line)
            if self.write is not None:
                self.write(line, record.levelno)
            else:
                print(line, file=sys.stderr, flush=True)  # stderr as it is now (patched or not)
        except Exception:  # noqa: BLE001 - a handler's contract: any failure goes to handleError
            self.handleError(record)


_FORMATTER = logging.Formatter()


def setup_logging(level: int) -> LineHandler:
    """Send retinue's records from `level` up (others from WARNING) to one `LineHandler`."""
    root = logging.getLogger()
    handler = LineHandler(level)
    root.addHandler(handler)
    root.setLevel(min(level, logging.WARNING))
    return handler
