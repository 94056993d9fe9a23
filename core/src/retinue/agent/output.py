"""What a model's turn produces: outbound `Request`s, and the reply protocol per intent."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from retinue.agent.messages import Intent


class Request(BaseModel):
    """One outbound message the model wants sent.

    The recipient comes first: a model writes the fields in this order, so a streamed
    output names who a text is for before the text arrives.
    """

    model_config = ConfigDict(defer_build=True)

    recipient: str = Field(
        description="'@Name' for an existing team member, or a bare role name to hire one"
    )
    message_type: Intent = Field(
        description=(
            "request: do something and send me the result; "
            "instruction: do something, possibly for someone else; "
            "response: the answer to a request you received; "
            "notification: information, no reply wanted; "
            "acknowledgment: confirms an instruction, no reply wanted"
        )
    )
    message: str = Field(description="The text to deliver, exactly as the recipient should read it")


class StructuredOutput(BaseModel):
    """Everything a turn sends; an empty list means nothing goes out this turn."""

    model_config = ConfigDict(defer_build=True)

    messages: list[Request] = Field(default_factory=list)


#: One line per intent: the mechanics of what arrived and whether an answer is owed. They say
#: nothing about who should do the work; division of labour belongs in each role's own prompt.
REPLY_PROTOCOLS: dict[str, str] = {
    "request": "{sender} is waiting for an answer: send {sender} the result as a response.",
    "response": "It answers something you asked for earlier; use it and carry on.",
    "instruction": "It asks you to carry something out; acknowledge to {sender} only if asked.",
    "notification": "It is for your information; nobody is waiting for a reply.",
    "acknowledgment": "It confirms that something you sent was received; nothing more is owed.",
}


def reply_protocol(intent: str, sender: str) -> str:
    """The header line a receiving agent puts before the raw content."""
    line = REPLY_PROTOCOLS.get(intent, REPLY_PROTOCOLS["notification"]).format(sender=sender)
    return f"Incoming {intent} from {sender}. {line}"
