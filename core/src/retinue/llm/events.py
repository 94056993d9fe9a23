"""What a `ReactAgent` reports through its event sink: serializable records of its runs.

They are the durable record: a store keeps them, a UI shows them, and `restore_context`
rebuilds an agent's history and usage ledger from them. Every event is a frozen pydantic
model with an `event_type` tag, so a stored JSON form parses back with `parse_llm_event`.
Model messages are kept in pydantic-ai's own JSON form (`ModelMessagesTypeAdapter`).
"""

from __future__ import annotations

import functools
import logging
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, field_serializer

from retinue.actors.errors import log_failure
from retinue.llm.config import ModelConfig

if TYPE_CHECKING:
    from pydantic_ai.messages import ModelMessage

logger = logging.getLogger(__name__)


def _now() -> datetime:
    return datetime.now(UTC)


class LlmEvent(BaseModel):
    """Common fields: which agent, which run (None outside a run), when.

    Schemas are built on a class's first use (`defer_build`), not when the kernel loads.
    """

    model_config = ConfigDict(frozen=True, defer_build=True)

    agent_name: str = ""
    run_id: str | None = None
    timestamp: datetime = Field(default_factory=_now)


class RunStartedEvent(LlmEvent):
    """A run was admitted and counted against the lifetime budget, before it executed."""

    event_type: Literal["run_started"] = "run_started"
    kind: Literal["run", "conclusion"] = "run"


class RunFinishedEvent(LlmEvent):
    """How a run ended; `error` names the exception class and text when it did not complete."""

    event_type: Literal["run_finished"] = "run_finished"
    status: Literal["completed", "interrupted", "usage_limit", "timeout", "failed"]
    error: str | None = None


class ModelMessageEvent(LlmEvent):
    """One message added to the history.

    It carries the live message and turns it into pydantic-ai's JSON form only when dumped
    (a store writing it, a copy crossing a process): a run's events cost no serialization
    when nobody records them. Read back from a store, `message` is that JSON form.
    """

    event_type: Literal["model_message"] = "model_message"
    message: Any

    @field_serializer("message")
    def _message_data(self, message: Any) -> dict[str, Any]:
        return message if isinstance(message, dict) else message_to_data(message)

    def __eq__(self, other: object) -> bool:
        """Equal when their recorded forms are: a live message equals its JSON form."""
        if not isinstance(other, ModelMessageEvent):
            return NotImplemented
        return self.model_dump(mode="json") == other.model_dump(mode="json")

    __hash__ = None  # type: ignore[assignment]

    def to_message(self) -> ModelMessage:
        message = self.message
        return data_to_message(message) if isinstance(message, dict) else message


class ToolCallEvent(LlmEvent):
    """The model called a function tool (output tools that end a run are not reported)."""

    event_type: Literal["tool_call"] = "tool_call"
    tool_name: str
    args: dict[str, Any] | str | None = None
    tool_call_id: str


class LlmUsageEvent(LlmEvent):
    """Usage of one model request; `cost_usd` is None when the price is unknown.

    `scripted`: a scripted model (`function`, `test`) answered, which no price list knows
    and nobody needs warning about.
    """

    event_type: Literal["llm_usage"] = "llm_usage"
    model_name: str | None = None
    requests: int = 1
    input_tokens: int = 0
    output_tokens: int = 0
    total_tokens: int = 0
    cost_usd: float | None = None
    scripted: bool = False


class ContextResetEvent(LlmEvent):
    """The history was replaced (clear, compaction); `messages` is the whole new history.

    Like `ModelMessageEvent`, it carries the live messages and turns them into pydantic-ai's
    JSON form only when dumped: a window compaction every few turns costs no serialization
    of the whole window when nobody records it. Read back from a store, each is that form.
    """

    event_type: Literal["context_reset"] = "context_reset"
    reason: Literal["clear", "compact"]
    messages: list[Any] = Field(default_factory=list)

    @field_serializer("messages")
    def _messages_data(self, messages: list[Any]) -> list[dict[str, Any]]:
        return [m if isinstance(m, dict) else message_to_data(m) for m in messages]

    def __eq__(self, other: object) -> bool:
        """Equal when their recorded forms are: live messages equal their JSON form."""
        if not isinstance(other, ContextResetEvent):
            return NotImplemented
        return self.model_dump(mode="json") == other.model_dump(mode="json")

    __hash__ = None  # type: ignore[assignment]

    def to_messages(self) -> list[ModelMessage]:
        return [data_to_message(m) if isinstance(m, dict) else m for m in self.messages]


class ModelSwitchedEvent(LlmEvent):
    """The agent's runs use another model from its next run on (`ReactAgent.use_model`).

    `model_cfg` None means back to the configured model. It is part of the record like the
    history: `restore_context` applies the latest one again, so a switch survives a resume.
    """

    event_type: Literal["model_switched"] = "model_switched"
    model_cfg: ModelConfig | None = None


class ToolDefinitionsEvent(LlmEvent):
    """The tools the agent offers its model changed, from its next model request on.

    Recorded when they differ from the last ones this runner recorded, not per request:
    `function_tools` and `output_tools` name all offered now, in order; `definitions` holds
    only those whose definition this runner had not recorded yet (a new tool, a changed
    description or schema), each `{"name", "description", "parameters", "strict"}`. A tool
    that comes and goes (a card holding it back) costs its name only. A replay folds these
    to know each turn's tools (`retinue.replay`); nothing else reads them.
    """

    event_type: Literal["tool_definitions"] = "tool_definitions"
    function_tools: list[str] = Field(default_factory=list)
    output_tools: list[str] = Field(default_factory=list)
    definitions: list[dict[str, Any]] = Field(default_factory=list)


AnyLlmEvent = Annotated[
    RunStartedEvent
    | RunFinishedEvent
    | ModelMessageEvent
    | ToolCallEvent
    | LlmUsageEvent
    | ContextResetEvent
    | ModelSwitchedEvent
    | ToolDefinitionsEvent,
    Field(discriminator="event_type"),
]


@functools.cache
def _event_adapter() -> TypeAdapter[AnyLlmEvent]:
    """Built on first use: only reading a record needs it, never importing the kernel."""
    return TypeAdapter(AnyLlmEvent)


#: The `event_type` tags of the events above: a record holds other tagged events too.
LLM_EVENT_TYPES = frozenset(
    cls.model_fields["event_type"].default
    for cls in (
        RunStartedEvent,
        RunFinishedEvent,
        ModelMessageEvent,
        ToolCallEvent,
        LlmUsageEvent,
        ContextResetEvent,
    )
)


def parse_llm_event(data: Any) -> AnyLlmEvent:
    """An event from its stored (JSON or python) form."""
    if isinstance(data, str | bytes):
        return _event_adapter().validate_json(data)
    return _event_adapter().validate_python(data)


def message_to_data(message: ModelMessage) -> dict[str, Any]:
    """A message in pydantic-ai's JSON-compatible form; never raises.

    Content pydantic cannot serialize falls back to its `repr`, and as a last resort the
    message is kept as a `repr` record that `data_to_message` refuses; the turn goes on.
    """
    from pydantic_ai.messages import ModelMessagesTypeAdapter

    try:
        data = ModelMessagesTypeAdapter.dump_python([message], mode="json", warnings="error")
        return data[0]  # type: ignore[no-any-return]
    except Exception:  # noqa: BLE001 - never raises: any failure falls back to the repr below
        pass
    try:
        data = ModelMessagesTypeAdapter.dump_python(
            [message], mode="json", fallback=repr, warnings=False
        )
        return data[0]  # type: ignore[no-any-return]
    except Exception as exc:  # noqa: BLE001 - never raises: what cannot be dumped is kept as repr
        what = "could not serialize a model message; keeping its repr"
        log_failure(logger, what, exc, logging.WARNING)
        return {"kind": "unserializable", "repr": repr(message)}


def data_to_message(data: dict[str, Any]) -> ModelMessage:
    """The message back from `message_to_data`'s form."""
    from pydantic_ai.messages import ModelMessagesTypeAdapter

    return ModelMessagesTypeAdapter.validate_python([data])[0]
