"""`ContextManager`: one agent's conversation history and the ways it changes between runs.

The history is the durable record of what the model was told. Besides the runs themselves,
it changes by operator actions (a human's slash command, a context-update block), by `clear`
and by compaction; each such change is reported as an event so a restore reproduces it.

An operator action recorded while the history is empty is held and folded into the next
run's prompt instead of becoming a message of its own, so the first run still opens the
conversation with its own user prompt.
"""

from __future__ import annotations

import logging
import sys
import threading
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    TextContent,
    UserContent,
    UserPromptPart,
)

from retinue.actors.errors import log_failure
from retinue.llm import history
from retinue.llm.config import CompactionConfig
from retinue.llm.events import (
    ContextResetEvent,
    ModelMessageEvent,
)
from retinue.llm.prompt import UserPrompt
from retinue.llm.usage import iter_llm_events

if TYPE_CHECKING:
    from retinue.llm.events import LlmEvent

Summariser = Callable[[Sequence[ModelMessage], str | None], Awaitable[str]]
"""Writes a summary of the given messages; the second argument is the run id, if any."""

EventSink = Callable[[object], None]
"""Receives every event a runner or context manager reports."""

SUMMARY_TIMEOUT = 300.0

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Compaction:
    """What a compaction dropped and what the history becomes."""

    dropped: list[ModelMessage]
    kept: list[ModelMessage]


OperatorAction = str | TextContent
"""What an operator action is recorded as: text, or a kernel-marked item (a context update)."""


def fold_into_prompt(
    actions: Sequence[OperatorAction], prompt: UserPrompt
) -> str | list[UserContent]:
    """The prompt with operator actions placed before it.

    A text prompt with text actions stays one string. Otherwise each action keeps its own
    item (a `TextContent` context update keeps its metadata, which marks it as the
    kernel's), followed by the blank line the string form would have had, so the model reads
    the same text either way, and the line that heads the message stays a line of its own.
    """
    if isinstance(prompt, str):
        texts = [action for action in actions if isinstance(action, str)]
        if len(texts) == len(actions):
            return "\n\n".join([*texts, prompt])
        return [*(_followed_by_blank_line(action) for action in actions), prompt]
    return [*(_followed_by_blank_line(action) for action in actions), *prompt]


def _followed_by_blank_line(action: OperatorAction) -> UserContent:
    if isinstance(action, str):
        return f"{action}\n\n"
    # interned like the block itself: members started together share one copy of the text
    return replace(action, content=sys.intern(f"{action.content}\n\n"))


class ContextManager:
    """The history of one agent, with operator actions, clearing and compaction."""

    def __init__(
        self,
        *,
        compaction_cfg: CompactionConfig | None = None,
        context_length: int | None = None,
        event_sink: Callable[[LlmEvent], None] | None = None,
        agent_name: str = "",
        summariser: Summariser | None = None,
        instructions: str | None = None,
    ) -> None:
        self.compaction_cfg = compaction_cfg or CompactionConfig()
        self.context_length = context_length
        self.agent_name = agent_name
        self.summariser = summariser
        self.instructions = instructions
        self._event_sink = event_sink
        self._messages: list[ModelMessage] = []
        self._pending: list[OperatorAction] = []
        self._lock = threading.RLock()
        self._sizes = history.MessageSizes()  # read by the run in flight only

    # ------------------------------------------------------------------ reading

    @property
    def messages(self) -> list[ModelMessage]:
        """A copy of the history."""
        with self._lock:
            return list(self._messages)

    @property
    def pending_operator_actions(self) -> list[OperatorAction]:
        """Operator actions waiting to be folded into the next prompt."""
        with self._lock:
            return list(self._pending)

    def __len__(self) -> int:
        return len(self._messages)

    # ------------------------------------------------------------------ changing

    def append(self, messages: Iterable[ModelMessage]) -> None:
        """Add messages at the end (the runner reports them itself)."""
        with self._lock:
            self._messages.extend(messages)

    def replace(self, messages: Iterable[ModelMessage]) -> None:
        """Set the whole history (after a run, which may have compacted it)."""
        with self._lock:
            self._messages = list(messages)

    def record_operator_action(self, text: OperatorAction) -> None:
        """Record something a human did (or a context-update block) as a user-role message.

        With an empty history it is held and folded into the next prompt instead. A
        `TextContent` (a context-update block) is kept as an item, metadata and all.
        """
        with self._lock:
            if not self._messages:
                self._pending.append(text)
                return
            content: str | list[UserContent] = text if isinstance(text, str) else [text]
            message = ModelRequest(parts=[UserPromptPart(content=content)])
            self._messages.append(message)
        self._emit(ModelMessageEvent(agent_name=self.agent_name, message=message))

    def take_prompt(self, prompt: UserPrompt) -> UserPrompt:
        """The next run's prompt, with any held operator actions folded in (and released)."""
        with self._lock:
            actions, self._pending = self._pending, []
        return fold_into_prompt(actions, prompt) if actions else prompt

    def clear(self) -> None:
        """Forget the whole conversation, held operator actions included."""
        with self._lock:
            self._messages = []
            self._pending = []
        self._emit(ContextResetEvent(agent_name=self.agent_name, reason="clear"))

    # ------------------------------------------------------------------ compaction

    @property
    def auto_compaction(self) -> bool:
        """Whether runs compact on their own (opt-in through `context_length`)."""
        return self.context_length is not None and self.compaction_cfg.strategy != "none"

    def over_budget(self, messages: Sequence[ModelMessage]) -> bool:
        """Whether `messages` pass the trigger share of the context length."""
        if self.context_length is None:
            return False
        budget = self.context_length * self.compaction_cfg.trigger_ratio
        return self._sizes.estimate(messages, self.instructions) > budget

    def windowed(self, messages: Sequence[ModelMessage]) -> Compaction | None:
        """`messages` cut to the window, or None when nothing can go."""
        cut, kept = history.window(messages, self.compaction_cfg.keep_last)
        return Compaction(dropped=list(messages[:cut]), kept=kept) if cut else None

    async def compacted(
        self, messages: Sequence[ModelMessage], run_id: str | None = None
    ) -> Compaction | None:
        """`messages` shortened by the configured strategy, or None when nothing can go.

        `summarize` puts one user-role summary message in place of what the window drops; when
        there is no summariser, or writing the summary fails, the plain window applies.
        """
        result = self.windowed(messages)
        if result is None or not self._summarizes:
            return result
        assert self.summariser is not None
        try:
            summary = await self.summariser(result.dropped, run_id)
        except Exception as exc:  # noqa: BLE001 - a summary run may fail in any way: window instead
            what = "summary failed; compacting to the window instead"
            log_failure(logger, what, exc, logging.WARNING)
            return result
        note = ModelRequest(
            parts=[UserPromptPart(content=f"{history.SUMMARY_MARKER}\n\n{summary}")]
        )
        return Compaction(dropped=result.dropped, kept=[note, *result.kept])

    @property
    def _summarizes(self) -> bool:
        return self.compaction_cfg.strategy == "summarize" and self.summariser is not None

    def compact(self, timeout: float = SUMMARY_TIMEOUT) -> bool:
        """Compact now, by the configured strategy (`none` means the window here).

        A summary is written on the model loop; returns whether anything changed.
        """
        with self._lock:
            current = list(self._messages)
        if self._summarizes:
            from retinue.llm.loop import run

            result = run(self.compacted(current), timeout)
        else:
            result = self.windowed(current)
        if result is None:
            return False
        kept = history.repair(result.kept)
        with self._lock:
            # a message recorded meanwhile (none is expected: one thread owns the agent) stays
            self._messages = kept + self._messages[len(current) :]
            snapshot = list(self._messages)
        self._emit(
            ContextResetEvent(
                agent_name=self.agent_name,
                reason="compact",
                messages=snapshot,
            )
        )
        return True

    # ------------------------------------------------------------------ restore

    def restore(self, events: Iterable[object]) -> None:
        """Rebuild the history from recorded events (messages appended, resets replacing)."""
        rebuilt: list[ModelMessage] = []
        for event in iter_llm_events(events):
            try:
                if isinstance(event, ModelMessageEvent):
                    rebuilt.append(event.to_message())
                elif isinstance(event, ContextResetEvent):
                    rebuilt = event.to_messages()
            except ValueError:  # a message that could not be recorded faithfully
                logger.warning("skipping an unreadable %s while restoring", type(event).__name__)
        with self._lock:
            self._messages = history.repair(rebuilt)
            self._pending = []

    # ------------------------------------------------------------------ events

    def _emit(self, event: LlmEvent) -> None:
        if self._event_sink is not None:
            emit_safely(self._event_sink, event)


def emit_safely(sink: Callable[[Any], None], event: Any) -> None:
    """Hand an event to the sink; a failing sink is logged, never raised into a turn."""
    try:
        sink(event)
    except Exception as exc:  # noqa: BLE001 - a sink may raise anything; never raised into a turn
        log_failure(logger, f"event sink failed on {type(event).__name__}", exc)
