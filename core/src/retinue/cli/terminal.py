"""The session in a terminal: a prompt with line editing, history and Tab, the team's flow
printed above it, and a bottom line saying who is working (prompt_toolkit)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator

from prompt_toolkit import PromptSession
from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document
from prompt_toolkit.patch_stdout import patch_stdout

from retinue.cli.session import Session, interact


class WordsCompleter(Completer):
    """Completes the word before the cursor from `words()`, read afresh at each Tab (the
    team's members change as it hires and fires)."""

    def __init__(self, words: Callable[[], Iterable[str]]) -> None:
        self.words = words

    def get_completions(
        self, document: Document, complete_event: CompleteEvent
    ) -> Iterator[Completion]:
        word = document.get_word_before_cursor(WORD=True)
        if not word:
            return
        for candidate in self.words():
            if candidate.lower().startswith(word.lower()):
                yield Completion(candidate, start_position=-len(word))


class TerminalReader:
    """Lines from a prompt_toolkit prompt; Ctrl-C and Ctrl-D come out as the exceptions.

    Above the prompt, what the agents are writing to the person shows as they write it (the
    end of it, when it is taller than the screen); the message, once delivered, is printed
    whole above.
    """

    def __init__(self, session: Session, person: str) -> None:
        self._console = session.console
        self._prompt: PromptSession[str] = PromptSession(
            bottom_toolbar=session.status,
            refresh_interval=0.3,  # redraws the status line as runs start and end
            completer=WordsCompleter(session.completions),
            complete_while_typing=False,
        )
        self._console.on_drafts_changed = self._prompt.app.invalidate  # thread-safe
        self._message = f"{person}> "

    def _with_drafts(self) -> str:
        size = self._prompt.app.output.get_size()
        lines = self._console.draft_lines(size.columns, size.rows - 4)
        return "\n".join([*lines, self._message]) if lines else self._message

    def read(self) -> str:
        return self._prompt.prompt(self._with_drafts)


def interact_in_terminal(session: Session, person: str) -> int:
    """`interact` with the prompt; whatever the team prints goes above it, escapes intact."""
    reader = TerminalReader(session, person)
    with patch_stdout(raw=True):
        return interact(session, reader)
