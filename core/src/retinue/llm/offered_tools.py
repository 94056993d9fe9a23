"""Which tool definitions a runner offered its model, recorded only when they change.

A replay compares the tools a request offers with the recorded ones, so the record must
hold them; but they are the same on nearly every request. A runner therefore keeps the
definitions it last recorded and checks each request against them by identity first: the
`ToolDefinition` objects pydantic-ai hands the model are the same objects from request to
request unless a `prepare` hook builds new ones, so the usual request costs one identity
comparison per tool. Only a new object is turned into its data form and compared.
"""

from __future__ import annotations

import operator
from itertools import chain
from typing import Any

from pydantic_ai.models import ModelRequestParameters
from pydantic_ai.tools import ToolDefinition

from retinue.llm.events import ToolDefinitionsEvent


def definition_data(tool: ToolDefinition) -> dict[str, Any]:
    """What of a definition the model is shown: name, description, parameters, strict."""
    return {
        "name": tool.name,
        "description": tool.description,
        "parameters": tool.parameters_json_schema,
        "strict": tool.strict,
    }


class OfferedTools:
    """One runner's last recorded tool definitions (used from its runs' model loop only)."""

    __slots__ = ("_agent", "_function", "_known", "_objects", "_output", "_seen")

    def __init__(self, agent: str) -> None:
        self._agent = agent
        #: The definitions of the last request, as objects: the identity check's reference.
        self._seen: tuple[ToolDefinition, ...] = ()
        self._function: list[str] | None = None
        self._output: list[str] = []
        #: Each tool's definition as last recorded, and the object it was read from.
        self._known: dict[str, dict[str, Any]] = {}
        self._objects: dict[str, ToolDefinition] = {}

    def changed(
        self, parameters: ModelRequestParameters, run_id: str
    ) -> ToolDefinitionsEvent | None:
        """The event to record when this request offers other definitions than the last."""
        function, output = parameters.function_tools, parameters.output_tools
        seen = self._seen
        if len(seen) == len(function) + len(output) and all(
            map(operator.is_, seen, chain(function, output))
        ):
            return None
        self._seen = (*function, *output)
        new = [data for tool in self._seen if (data := self._new_definition(tool)) is not None]
        names = [tool.name for tool in function]
        output_names = [tool.name for tool in output]
        if not new and names == self._function and output_names == self._output:
            return None
        self._function, self._output = names, output_names
        return ToolDefinitionsEvent(
            agent_name=self._agent,
            run_id=run_id,
            function_tools=names,
            output_tools=output_names,
            definitions=new,
        )

    def _new_definition(self, tool: ToolDefinition) -> dict[str, Any] | None:
        """Its data form when it differs from the one recorded under its name, else None."""
        if self._objects.get(tool.name) is tool:
            return None
        self._objects[tool.name] = tool
        data = definition_data(tool)
        if self._known.get(tool.name) == data:
            return None
        self._known[tool.name] = data
        return data
