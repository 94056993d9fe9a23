"""The summary that replaces compacted history, written by the agent's own model.

A summary is a model run of its own and its usage is the agent's: it is held per run and
reported when the run that compacted reports (for a compaction outside a run, at the
runner's next step), so the agent's ledger and the event record include it.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

from pydantic_ai import Agent
from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models import Model
from pydantic_ai.settings import ModelSettings
from pydantic_ai.usage import UsageLimits

from retinue.llm import history
from retinue.llm.events import LlmUsageEvent
from retinue.llm.response_usage import usage_event

SUMMARY_REQUEST_LIMIT = 2
"""Model requests one summary may take (one retry of a malformed answer)."""


class SummaryWriter:
    """Writes one agent's summaries; its `ContextManager` calls it while compacting.

    The pydantic-ai agent is built on the first summary: most agents never compact.
    """

    def __init__(
        self, model: Model, *, name: str, instructions: str, settings: ModelSettings
    ) -> None:
        self.model = model
        self.name = name
        self.instructions = instructions
        self.settings = settings
        self._agent: Agent[Any, str] | None = None
        self._lock = threading.Lock()
        self._usage: dict[str | None, list[LlmUsageEvent]] = {}

    async def __call__(self, messages: Sequence[ModelMessage], run_id: str | None) -> str:
        if self._agent is None:
            self._agent = Agent(
                self.model,
                output_type=str,
                instructions=self.instructions,
                model_settings=self.settings,
                name=f"{self.name}:summary",
                defer_model_check=True,
            )
        result = await self._agent.run(
            history.render_transcript(messages),
            usage_limits=UsageLimits(request_limit=SUMMARY_REQUEST_LIMIT),
        )
        events = [
            usage_event(self.name, message, run_id)
            for message in result.new_messages()
            if isinstance(message, ModelResponse)
        ]
        with self._lock:
            self._usage.setdefault(run_id, []).extend(events)
        return result.output

    def take_usage(self, run_id: str | None) -> list[LlmUsageEvent]:
        """The usage of the summaries written for `run_id` (None: outside a run), once."""
        with self._lock:
            return self._usage.pop(run_id, [])
