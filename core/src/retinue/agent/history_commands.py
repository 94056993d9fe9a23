"""The commands an agent offers on its model's history: `/compact`, `/clear`, the transcript.

A mixin of `BaseAgent`, apart so the agent's own module stays its turn logic.
"""

from __future__ import annotations

from retinue.actors.surface import remote
from retinue.llm.history import render_transcript
from retinue.llm.react_agent import ReactAgent
from retinue.tools.context_updates import ContextUpdater


class HistoryCommands:
    """`compact`, `clear`, `get_context_transcript` and the kernel's notes to the model."""

    _react: ReactAgent | None
    _context_updater: ContextUpdater | None

    def _runner(self) -> ReactAgent:
        if self._react is None:
            raise RuntimeError("the agent has not started yet")
        return self._react

    @remote
    def compact(self) -> str:
        """Shrink the conversation history to free context."""
        react = self._runner()
        before = len(react.context)
        if not react.compact():
            return "Nothing to compact."
        return f"Context compacted: {before} messages became {len(react.context)}."

    @remote
    def clear(self) -> str:
        """Forget the conversation so far; the next turn starts from a full context update."""
        self._runner().clear()
        if self._context_updater is not None:
            self._context_updater.reset()
        return "Context cleared."

    def _note_for_model(self, text: str) -> None:
        """Put a line from the kernel into the history: the model reads it on its next turn."""
        if self._react is not None:
            self._react.context.record_operator_action(f"[retinue] {text}")

    @remote
    def get_context_transcript(self) -> str:
        """The conversation as the model will see it next, as plain text (for people)."""
        return render_transcript(self._runner().messages)
