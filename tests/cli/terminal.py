"""A real pseudo-terminal for the command, and the screen a person would see in it.

pexpect runs the command in a pty; pyte, a terminal emulator, draws its output, so a test
reads the screen (colours, cursor moves and the prompt's redraws applied) instead of raw
escape codes. The emulator answers the prompt's cursor-position requests as a terminal does.
Every wait is for text to appear, bounded by a deadline that fails the test: nothing sleeps.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pexpect
import pyte

from tests.cli.conftest import command_env


class _AnsweringScreen(pyte.Screen):
    """A screen that sends the terminal's answers (cursor position) back to the program."""

    def __init__(self, columns: int, lines: int, child: pexpect.spawn) -> None:
        super().__init__(columns, lines)
        self._child = child

    def write_process_input(self, data: str) -> None:
        self._child.send(data)


class Terminal:
    """The command in a pty of `lines` x `columns`, and what its screen shows."""

    def __init__(
        self, args: list[str], cwd: Path, lines: int = 60, columns: int = 140, **env: str
    ) -> None:
        # The size is the pty's, whatever the runner's environment says (xdist, tox -p).
        environment = command_env(TERM="xterm", COLUMNS=str(columns), LINES=str(lines), **env)
        environment.pop("NO_COLOR", None)
        self.child = pexpect.spawn(
            sys.executable,
            ["-m", "retinue", *args],
            cwd=str(cwd),
            env=environment,
            dimensions=(lines, columns),
        )
        self.screen = _AnsweringScreen(columns, lines, self.child)
        self.stream = pyte.ByteStream(self.screen)
        self.seen = ""  # every line the screen has shown, kept as lines scroll away

    # ------------------------------------------------------------------ reading
    def text(self) -> str:
        """The screen now, one line per row, trailing blanks cut."""
        return "\n".join(row.rstrip() for row in self.screen.display)

    def _pump(self, timeout: float) -> bool:
        """Feed what the program wrote within `timeout`; False once it has ended."""
        try:
            data = self.child.read_nonblocking(65536, timeout=timeout)
        except pexpect.TIMEOUT:
            return True
        except pexpect.EOF:
            return False
        self.stream.feed(data)
        for row in self.text().splitlines():
            if row.strip() and row not in self.seen:
                self.seen += row + "\n"
        return True

    def wait_for(self, text: str, timeout: float = 120.0, count: int = 1) -> str:
        """Until `text` is on the screen (`count` times); the screen. Fails at the deadline."""
        deadline = time.monotonic() + timeout
        while self.text().count(text) < count:
            left = deadline - time.monotonic()
            if left <= 0 or not self._pump(min(left, 1.0)):
                if self.text().count(text) >= count:
                    break
                raise AssertionError(f"{text!r} never appeared; the screen:\n{self.text()}")
        return self.text()

    def wait_exit(self, timeout: float = 120.0) -> int:
        """Until the program ends; its exit status."""
        deadline = time.monotonic() + timeout
        while self._pump(max(deadline - time.monotonic(), 0.01)):
            if time.monotonic() > deadline:
                raise AssertionError(f"the command did not end; the screen:\n{self.text()}")
        self.child.close()
        status = self.child.exitstatus
        assert status is not None, f"ended by signal {self.child.signalstatus}"
        return int(status)

    # ------------------------------------------------------------------ typing
    def type(self, line: str) -> None:
        """Type a line and press Enter."""
        self.child.send(line + "\r")

    def ctrl_c(self) -> None:
        self.child.sendintr()

    def ctrl_d(self) -> None:
        self.child.sendeof()

    def close(self) -> None:
        if self.child.isalive():
            self.child.terminate(force=True)


def release(fifo: Path) -> bool:
    """Let a model held on `fifo` go on; False when no model was waiting on it."""
    try:
        descriptor = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
    except OSError:  # ENXIO: nobody has it open for reading
        return False
    try:
        os.write(descriptor, b"go")
    finally:
        os.close(descriptor)
    return True
