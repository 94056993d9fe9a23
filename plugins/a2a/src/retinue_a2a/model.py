"""The model an `A2AMember` runs on: each request is one exchange with the remote agent.

A member's turn stays the kernel's own run, so everything a run gets comes with it: a
`/stop` (or a cascade) cancels the request in flight, and with it the remote task; an
exception is the kernel's failure path (the requester and the person are told); what the
remote reports it spent is the request's usage. The model answers through the run's output
tool: the remote agent's words, as they are, to whoever sent the message.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, Field
from pydantic_ai.messages import ModelMessage, ModelResponse, ToolCallPart
from pydantic_ai.models import Model, ModelRequestParameters
from pydantic_ai.profiles import ModelProfileSpec
from pydantic_ai.settings import ModelSettings
from pydantic_ai.usage import RequestUsage

from retinue_a2a.remote import Answer, Exchange, exchange

ANSWERED = frozenset({"request", "instruction"})
"""Intents whose sender waits: the remote's answer goes back as a `response`."""


@dataclass(frozen=True)
class Turn:
    """The message a member's run is working on, as the remote agent is sent it."""

    text: str
    reply_to: str
    intent: str
    chain_id: str | None


class RemoteConversation(BaseModel):
    """Where a member stands with its remote agent: the A2A context it speaks in, and the
    tasks the remote left waiting for input, by the task chain that asked ("" for none).

    Kept in the member's state, so a resumed team goes on in the same remote conversation
    and a question the remote asked before the restart is still answered in its task.
    """

    context_id: str | None = None
    waiting: dict[str, str] = Field(default_factory=dict)


class RemoteAgentModel(Model):
    """A pydantic-ai model whose every request is answered by a remote A2A agent."""

    def __init__(
        self,
        remote: Callable[[], Exchange],
        turn: Callable[[], Turn | None],
        conversation: Callable[[], RemoteConversation],
        *,
        profile: ModelProfileSpec | None = None,
    ) -> None:
        super().__init__(profile=profile)
        self._remote = remote
        self._turn = turn
        self._conversation = conversation  # read at each request: a resume replaces it

    @property
    def model_name(self) -> str:
        return self._remote().url

    @property
    def system(self) -> str:
        return "a2a"

    async def request(
        self,
        messages: list[ModelMessage],
        model_settings: ModelSettings | None,
        model_request_parameters: ModelRequestParameters,
    ) -> ModelResponse:
        turn = self._turn()
        if turn is None:  # a run with no message behind it (a conclusion): nothing to send
            return _output(model_request_parameters, [])
        conversation, chain = self._conversation(), turn.chain_id or ""
        answer = await exchange(
            self._remote(),
            turn.text,
            context_id=conversation.context_id,
            task_id=conversation.waiting.pop(chain, None),
        )
        conversation.context_id = answer.context_id or conversation.context_id
        if answer.wants_input and answer.task_id is not None:
            conversation.waiting[chain] = answer.task_id
        return _output(model_request_parameters, [_reply(turn, answer)], _usage(answer))


def _reply(turn: Turn, answer: Answer) -> dict[str, str]:
    """The remote's words to the sender: an answer, or the remote's question to it."""
    if answer.wants_input:
        intent = "request"
    else:
        intent = "response" if turn.intent in ANSWERED else "notification"
    return {"recipient": turn.reply_to, "message_type": intent, "message": answer.text}


def _output(
    parameters: ModelRequestParameters,
    messages: list[dict[str, str]],
    usage: RequestUsage | None = None,
) -> ModelResponse:
    tool = parameters.output_tools[0].name
    args: dict[str, Any] = {"messages": messages}
    return ModelResponse(
        parts=[ToolCallPart(tool_name=tool, args=args)], usage=usage or RequestUsage()
    )


def _usage(answer: Answer) -> RequestUsage:
    spent = answer.usage
    return RequestUsage(
        input_tokens=spent.get("input_tokens", 0), output_tokens=spent.get("output_tokens", 0)
    )
