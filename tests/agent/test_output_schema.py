"""The output tool a model is offered: `StructuredOutput`'s schema with `Request` written in
place (no `$defs`, no `$ref`), equal to what pydantic generates for `Request`, so the schema
the model reads cannot drift from the one its output is validated against."""

from __future__ import annotations

from typing import Any

from pydantic_ai.messages import ModelMessage, ModelResponse
from pydantic_ai.models.function import AgentInfo
from retinue import Request, StructuredOutput
from retinue.agent.output import REQUESTS_SCHEMA
from retinue.testing import TeamHarness, incoming, scripted_card, send


def _untitled(schema: Any) -> Any:
    """A JSON schema without pydantic's `title` keys (pydantic-ai strips them too)."""
    if isinstance(schema, dict):
        return {key: _untitled(value) for key, value in schema.items() if key != "title"}
    if isinstance(schema, list):
        return [_untitled(value) for value in schema]
    return schema


def test_the_inlined_request_schema_is_pydantics_own() -> None:
    assert REQUESTS_SCHEMA["items"] == _untitled(Request.model_json_schema())
    field = StructuredOutput.model_json_schema()["properties"]["messages"]
    assert _untitled(field) == REQUESTS_SCHEMA


def test_a_model_is_offered_the_output_tool_without_definitions_and_its_answer_validates(
    retinue_team: TeamHarness,
) -> None:
    offered: list[dict[str, Any]] = []

    def member(messages: list[ModelMessage], info: AgentInfo) -> ModelResponse:
        offered.append(info.output_tools[0].parameters_json_schema)
        return send(info, (incoming(messages).sender, "response", "done"))

    worker = retinue_team.add(scripted_card("Worker"), model=member)
    retinue_team.say(worker, "hello")
    retinue_team.wait_idle(20)

    (schema,) = offered
    assert "$defs" not in schema and "$ref" not in str(schema)
    assert schema["properties"]["messages"] == REQUESTS_SCHEMA
    assert ("@Worker", "@Human", "response", "done") in retinue_team.transcript()
