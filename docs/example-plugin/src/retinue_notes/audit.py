"""`NotesAudit`: a pydantic-ai capability that logs every note an agent takes, with its run.

A card sees only its own tools; a capability sits inside the agent's pydantic-ai runs and
sees every tool call and model request, with the run's id. This one writes a log line; a
real plugin might export a trace span or enforce a policy at the same place. Delete this
module and the `retinue_capabilities` hook if your plugin needs neither.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any

from pydantic_ai import RunContext
from pydantic_ai.capabilities import AbstractCapability, ValidatedToolArgs
from pydantic_ai.messages import ToolCallPart
from pydantic_ai.tools import ToolDefinition

logger = logging.getLogger("retinue_notes")


@dataclass
class NotesAudit(AbstractCapability[Any]):
    """Logs the `take_note` calls of one agent; built afresh for each agent with the card."""

    agent_name: str

    async def after_tool_execute(
        self,
        ctx: RunContext[Any],
        *,
        call: ToolCallPart,
        tool_def: ToolDefinition,
        args: ValidatedToolArgs,
        result: Any,
    ) -> Any:
        if call.tool_name == "take_note":
            logger.info(
                "%s, run %s: take_note(%r) -> %s",
                self.agent_name,
                ctx.run_id,
                args.get("text"),
                result,
            )
        return result
