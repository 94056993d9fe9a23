"""The runner's own capabilities: what it must learn or do from inside a run.

Each finds the run it acts for by id among the runner's runs in flight, so one capability
object serves every run of its runner.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from pydantic_ai import RunContext
from pydantic_ai.capabilities import AbstractCapability, ProcessHistory
from pydantic_ai.messages import ModelMessage
from pydantic_ai.tools import ToolDefinition

from retinue.llm.context import ContextManager
from retinue.llm.run_parts import RunState


def _run_of(runs: Mapping[str, RunState], run_id: str | None) -> RunState | None:
    return runs.get(run_id) if run_id is not None else None


@dataclass
class OutputToolsHook(AbstractCapability[Any]):
    """Learns which tools end the run, so a call of one is reported as the answer, not a call."""

    runs: Mapping[str, RunState] = field(repr=False)

    async def prepare_output_tools(
        self, ctx: RunContext[Any], tool_defs: list[ToolDefinition]
    ) -> list[ToolDefinition]:
        state = _run_of(self.runs, ctx.run_id)
        if state is not None:
            state.output_tools.update(tool.name for tool in tool_defs)
        return tool_defs


def compaction_hook(context: ContextManager, runs: Mapping[str, RunState]) -> ProcessHistory[Any]:
    """Automatic compaction before a model request, once the context is over budget.

    The run is marked compacted and keeps its own messages that compaction dropped, so what
    it reports still accounts for them.
    """

    async def compact(ctx: RunContext[Any], messages: list[ModelMessage]) -> list[ModelMessage]:
        if not context.over_budget(messages):
            return messages
        result = await context.compacted(messages, ctx.run_id)
        if result is None:
            return messages
        state = _run_of(runs, ctx.run_id)
        if state is not None:
            state.compacted = True
            state.dropped.extend(
                m for m in result.dropped if getattr(m, "run_id", None) == ctx.run_id
            )
        return result.kept

    return ProcessHistory(compact)
