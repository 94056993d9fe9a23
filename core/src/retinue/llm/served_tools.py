"""Tool results a model serves instead of the tool running: the replay's seam for tools.

A replay answers every model request from a record, and by default must touch nothing
outside: a tool the recorded answer calls is then not run, its recorded result is given
back instead. The model that answers is the one place that knows the record, so the model
serves the results too: a model that is a `ToolResultSource` is asked first for every tool
call of a run on it (`RunnerCapability.wrap_tool_execute`); None runs the tool as usual.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from pydantic_ai.messages import ToolCallPart


@runtime_checkable
class ToolResultSource(Protocol):
    """A model that may answer a tool call in the tool's place."""

    def served_tool_result(self, call: ToolCallPart) -> ServedResult | None:
        """What the call returns without running, or None to run the tool."""


class ServedResult:
    """A tool call's result given without running it: a value, or a retry the tool asked for
    (the model is sent back with `retry`, as when the tool raised `ModelRetry`)."""

    __slots__ = ("retry", "value")

    def __init__(self, value: Any = None, *, retry: str | None = None) -> None:
        self.value = value
        self.retry = retry
