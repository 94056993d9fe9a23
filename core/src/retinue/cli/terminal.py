"""The session in a terminal: a prompt with line editing, history and Tab, the team's flow
printed above it, and a bottom line saying who is working (prompt_toolkit)."""

from __future__ import annotations

from typing import Any

from retinue.cli.session import Session, interact, words_completer


class TerminalReader:
    """Lines from a prompt_toolkit prompt; Ctrl-C and Ctrl-D come out as the exceptions."""

    def __init__(self, session: Session, person: str) -> None:
        from prompt_toolkit import PromptSession

        self._prompt: Any = PromptSession(
            bottom_toolbar=session.status,
            refresh_interval=0.3,  # redraws the status line as runs start and end
            completer=words_completer(session.completions),  # type: ignore[arg-type]
            complete_while_typing=False,
        )
        self._message = f"{person}> "

    def read(self) -> str:
        line: str = self._prompt.prompt(self._message)
        return line


def interact_in_terminal(session: Session, person: str) -> int:
    """`interact` with the prompt; whatever the team prints goes above it, escapes intact."""
    from prompt_toolkit.patch_stdout import patch_stdout

    reader = TerminalReader(session, person)
    with patch_stdout(raw=True):
        return interact(session, reader)
