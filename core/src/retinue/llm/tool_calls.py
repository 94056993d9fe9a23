"""The tool-effect ledger's records: each function tool call as started and as finished.

A call's start is recorded before the tool runs (durably, when the team records and the
tool may have effects: see `retinue.agent.tool_ledger`), its end once it returned or
raised. A start with no end in a turn that never finished is a call that may have run:
a resume tells the model so in that turn's rerun, unless the tool was declared
`read_only` or `idempotent` (`retinue.llm.tool_effects`).

Both are `LlmEvent`s reported by the agent, so each record names the agent (`agent_name`),
the run (`run_id`), and through its `EventMessage` the turn's message (`parent_id`) and task
chain (`chain_id`).
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import field_serializer
from pydantic_core import to_jsonable_python

from retinue.llm.events import LlmEvent
from retinue.llm.tool_effects import ToolEffect

#: The most characters of a call's result kept in its finished record (the whole result is
#: in the model messages; this is the ledger's account of it).
RESULT_CHARS = 2000


class ToolCallStartedEvent(LlmEvent):
    """A function tool is about to run with these arguments."""

    event_type: Literal["tool_call_started"] = "tool_call_started"
    tool_name: str
    args: dict[str, Any] | str | None = None
    tool_call_id: str
    effect: ToolEffect | None = None
    """What running it twice does, as declared; None: unknown."""


class ToolCallFinishedEvent(LlmEvent):
    """A function tool returned (`result`) or raised (`error`: its class and text)."""

    event_type: Literal["tool_call_finished"] = "tool_call_finished"
    tool_name: str
    tool_call_id: str
    result: Any = None
    error: str | None = None

    @field_serializer("result")
    def _result_data(self, result: Any) -> Any:
        return kept_result(result)


def kept_result(result: Any) -> Any:
    """A result as JSON data, a long or unserializable one as (cut) text."""
    try:
        data = to_jsonable_python(result, fallback=repr)
    except Exception:  # noqa: BLE001 - a result nothing can dump is kept as its repr
        data = repr(result)
    if isinstance(data, str):
        return data if len(data) <= RESULT_CHARS else data[:RESULT_CHARS] + "…"
    if isinstance(data, int | float | bool) or data is None:
        return data
    text = repr(data)
    return data if len(text) <= RESULT_CHARS else text[:RESULT_CHARS] + "…"
