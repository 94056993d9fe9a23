"""What a model's turn produces: outbound `Request`s, and the reply protocol per intent."""

from __future__ import annotations

from typing import Annotated, Any, get_args

from pydantic import BaseModel, ConfigDict, Field, WithJsonSchema

from retinue.agent.messages import Intent


def _no_description(schema: dict[str, Any]) -> None:
    """Keep a class's docstring and title out of its JSON schema: every request carries it,
    and what it means is told once, elsewhere."""
    schema.pop("description", None)
    schema.pop("title", None)


class Request(BaseModel):
    """One outbound message the model wants sent.

    The recipient comes first: a model writes the fields in this order, so a streamed
    output names who a text is for before the text arrives. The schema carries no
    descriptions: what the fields mean is said once, in the shared instructions every
    `BaseAgent` is given (`TEAM_PROTOCOL`), not on every request twice.
    """

    model_config = ConfigDict(defer_build=True, json_schema_extra=_no_description)

    recipient: str
    """`@Name` for a member, or a bare role name to hire one."""
    message_type: Intent
    message: str
    """The text to deliver, exactly as the recipient should read it."""


def _as_output_tool(schema: dict[str, Any]) -> None:
    """The output tool's description, in two words (pydantic-ai's default takes seven)."""
    _no_description(schema)
    schema["description"] = "Your messages."


REQUESTS_SCHEMA: dict[str, Any] = {
    "items": {
        "properties": {
            "recipient": {"type": "string"},
            "message_type": {"enum": list(get_args(Intent)), "type": "string"},
            "message": {"type": "string"},
        },
        "required": ["recipient", "message_type", "message"],
        "type": "object",
    },
    "type": "array",
}
"""`list[Request]`'s JSON schema with `Request` written in place: a `$defs` entry and the
`$ref` to it cost 15 tokens on every request, and nothing else refers to it. A test keeps it
equal to what pydantic generates for `Request`."""


class StructuredOutput(BaseModel):
    """Everything a turn sends; an empty list means nothing goes out this turn."""

    model_config = ConfigDict(defer_build=True, json_schema_extra=_as_output_tool)

    messages: Annotated[list[Request], WithJsonSchema(REQUESTS_SCHEMA)] = Field(
        default_factory=list
    )


#: One line per intent, before the message it heads: who sent it and what it wants, in as few
#: words as carry it (what each intent asks of the receiver is said once, in the shared
#: instructions). They say nothing about who should do the work: division of labour belongs
#: in each role's own prompt.
REPLY_PROTOCOLS: dict[str, str] = {
    "request": "{sender} waits for your response:",
    "response": "{sender} responds:",
    "instruction": "{sender} instructs you:",
    "notification": "{sender} notifies you:",
    "acknowledgment": "{sender} acknowledges:",
}


def reply_protocol(intent: str, sender: str) -> str:
    """The header line a receiving agent puts before the raw content."""
    return REPLY_PROTOCOLS.get(intent, REPLY_PROTOCOLS["notification"]).format(sender=sender)
