"""`JsonTranscript`: a team's record as JSON lines, one object per message or event.

For scripts: every line is one JSON object with the same keys for its kind, whatever the
text in it (a content holding newlines or quotes stays one line). The keys every object has:
`record` (what it is), `id`, `time` (ISO 8601, UTC), `chain_id`, `parent_id`, `sender`
and `recipient` (member names, or null). Then, by `record`:

- `message`: `type` (the message class), `intent` and `content` (null for a message
  without text, such as a cancel), and `failure` (`kind`, `member`, `reason`) for a
  failure notice;
- `event`: `event` (its `event_type`, or its class name) and `data` (the event's JSON form);
- `start`: `member`, `role`, `parent`, `actor_class`; `stop`: `member`, `shutdown`;
- `error`: `exception_type`, `exception_value`, `message_id`;
- `handled`: `message_id`.

State checkpoints and the model's own messages (`model_message` events) are left out unless
`verbose`: they are the record a resume reads, not the conversation.
"""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Callable
from typing import IO, Any

from pydantic import BaseModel

from retinue.actors.messages import (
    ErrorMessage,
    EventMessage,
    HandledMessage,
    Message,
    SentMessage,
    StartMessage,
    StopMessage,
)
from retinue.agent.failures import FailureNotice
from retinue.agent.messages import AgentMessage
from retinue.llm.events import ModelMessageEvent
from retinue.team.subscriber import EventSubscriber


def _name(address: Any) -> str | None:
    return getattr(address, "name", None)


def _common(record: str, message: Message) -> dict[str, Any]:
    return {
        "record": record,
        "id": message.id,
        "time": message.timestamp.isoformat(),
        "chain_id": message.chain_id,
        "parent_id": message.parent_id,
        "sender": _name(message.sender),
        "recipient": _name(message.recipient),
    }


def _data(event: Any) -> Any:
    """The event's JSON form; whatever cannot be dumped is kept as its repr."""
    try:
        if isinstance(event, BaseModel):
            return event.model_dump(mode="json")
        json.dumps(event)
        return event
    except Exception:  # noqa: BLE001 - a model's serializers may raise anything; the repr is kept
        return {"repr": repr(event)}


def _sent(message: SentMessage, verbose: bool) -> dict[str, Any] | None:
    sent = message.message
    line = _common("message", sent)
    line["type"] = type(sent).__name__
    is_text = isinstance(sent, AgentMessage)
    line["intent"] = sent.type if isinstance(sent, AgentMessage) else None
    line["content"] = sent.content if isinstance(sent, AgentMessage) else None
    if isinstance(sent, FailureNotice):
        line["failure"] = {"kind": sent.failure, "member": sent.member, "reason": sent.reason}
    if not is_text and verbose:
        line["data"] = _data(sent)
    return line


def _event(message: EventMessage, verbose: bool) -> dict[str, Any] | None:
    event = message.event
    if isinstance(event, ModelMessageEvent) and not verbose:
        return None
    line = _common("event", message)
    line["event"] = getattr(event, "event_type", None) or type(event).__name__
    line["data"] = _data(event)
    return line


def _start(message: StartMessage, verbose: bool) -> dict[str, Any] | None:
    line = _common("start", message)
    line["member"] = _name(message.sender)
    line["role"] = getattr(message.sender, "role", None)
    line["parent"] = _name(message.parent)
    line["actor_class"] = message.actor_class
    return line


def _stop(message: StopMessage, verbose: bool) -> dict[str, Any] | None:
    line = _common("stop", message)
    line["member"] = _name(message.sender)
    line["shutdown"] = message.shutdown
    return line


def _error(message: ErrorMessage, verbose: bool) -> dict[str, Any] | None:
    line = _common("error", message)
    line["exception_type"] = message.exception_type
    line["exception_value"] = message.exception_value
    line["message_id"] = message.current_message_id
    return line


def _handled(message: HandledMessage, verbose: bool) -> dict[str, Any] | None:
    line = _common("handled", message)
    line["message_id"] = message.message_id
    return line


_WRITERS: tuple[tuple[type[Message], Callable[[Any, bool], dict[str, Any] | None]], ...] = (
    (SentMessage, _sent),
    (EventMessage, _event),
    (StartMessage, _start),
    (StopMessage, _stop),
    (ErrorMessage, _error),
    (HandledMessage, _handled),
)


def record_to_json(message: Message, verbose: bool = False) -> dict[str, Any] | None:
    """The JSON object for one recorded message, or None when the transcript leaves it out."""
    for kind, write in _WRITERS:
        if isinstance(message, kind):
            return write(message, verbose)
    if not verbose:
        return None
    line = _common(type(message).__name__, message)
    line["data"] = _data(message)
    return line


class JsonTranscript(EventSubscriber):
    """Writes each recorded message as one JSON line (see the module docstring for the keys)."""

    def __init__(self, file: IO[str] | None = None, verbose: bool = False) -> None:
        self._file = file
        self.verbose = verbose
        #: Set when the reader went away; nothing is written after it.
        self.closed = False
        self._lock = threading.Lock()

    def on_message(self, message: Message) -> None:
        line = record_to_json(message, self.verbose)
        if line is not None:
            self.write(line)

    def close(self) -> None:
        """Write nothing more (what is recorded later is left out)."""
        with self._lock:
            self.closed = True

    def write(self, line: dict[str, Any]) -> None:
        """Write one object of the caller's own (the command's final `result`, say)."""
        text = json.dumps(line, ensure_ascii=False, default=repr)
        with self._lock:
            if self.closed:
                return
            out = self._file if self._file is not None else sys.stdout
            try:
                out.write(text + "\n")
                out.flush()
            except BrokenPipeError:  # the reader is gone (`| head`): nothing more to say
                self.closed = True
