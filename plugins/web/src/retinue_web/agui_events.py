"""One AG-UI run's events, translated from the team's record as it is folded.

A run is the person's message and its task chain: everything the team does for it carries
the message's id as its chain. From the record, in order:

- a message to the person in the chain: `TEXT_MESSAGE_START` (role `assistant`, `name` the
  member who says it), one `TEXT_MESSAGE_CONTENT`, `TEXT_MESSAGE_END`; its id is the
  message's own;
- a message between members in the chain: `CUSTOM` `retinue.message`;
- a member's function tool call in the chain (recorded when its run ends): `TOOL_CALL_START`,
  `TOOL_CALL_ARGS` (the arguments as JSON), `TOOL_CALL_END`, then `TOOL_CALL_RESULT` once the
  result is in the record;
- what the flow says happened to the team meanwhile (a hire, a member leaving, a stopped
  task or loop, a failed run, ...): `CUSTOM` `retinue.<event>`, whatever the task.

How the run ended is kept here for the last event. Text and arguments are the models' own
and hostile: they are cut to the bound the page uses (`delta.TEXT_LIMIT`), arguments kept as
valid JSON (`{"cut": "...", "more": N}` when cut).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from ag_ui.core import (
    BaseEvent,
    CustomEvent,
    RunErrorEvent,
    RunFinishedCancelledOutcome,
    RunFinishedEvent,
    RunFinishedInterruptOutcome,
    RunFinishedOutcome,
    RunFinishedSuccessOutcome,
    TextMessageContentEvent,
    TextMessageEndEvent,
    TextMessageStartEvent,
    ToolCallArgsEvent,
    ToolCallEndEvent,
    ToolCallResultEvent,
    ToolCallStartEvent,
)
from retinue import EventMessage, ModelMessageEvent, ToolCallEvent
from retinue.record import decode

from retinue_web.agui_interrupts import interrupt
from retinue_web.approvals import CHOICE_CHARS, bounded
from retinue_web.delta import TEXT_LIMIT
from retinue_web.turns import part_text

if TYPE_CHECKING:
    from retinue.record import Record

#: The record kinds a run reads beside the feed's deltas: tool calls and their results.
TOOL_KINDS = ("ToolCallEvent", "ModelMessageEvent")
#: Custom events' names are this prefix and the flow's word for what happened.
PREFIX = "retinue."
_RESULT_PARTS = frozenset({"tool-return", "retry-prompt"})


def args_json(args: Any) -> str:
    """A tool call's arguments as JSON text within `TEXT_LIMIT`, still valid JSON when cut."""
    text = args if isinstance(args, str) else json.dumps(args or {}, ensure_ascii=False)
    if len(text) <= TEXT_LIMIT:
        return text
    return json.dumps({"cut": text[:TEXT_LIMIT], "more": len(text) - TEXT_LIMIT})


class RunTranslator:
    """The events of the run whose work is `chains`, and how it went (see the module docstring)."""

    def __init__(self, chains: set[str]) -> None:
        self.chains = chains
        self.answered = False
        self.failures: list[str] = []
        self.cancelled = False
        self.loop = ""
        self._calls: dict[tuple[str, str], str] = {}  # (run, the model's call id) -> ours

    # ------------------------------------------------------------------ the flow
    def flow(self, item: dict[str, Any]) -> list[BaseEvent]:
        """The events of one flow line (a message or an event of the page's flow)."""
        if item.get("kind") == "event":
            return self._event(item)
        if item.get("chain") not in self.chains or item.get("from_person"):
            return []
        if item.get("to_person"):
            return self._said(item)
        value = {k: item.get(k) for k in ("id", "from", "to", "intent", "text")}
        return [CustomEvent(name=PREFIX + "message", value=value)]

    def _said(self, item: dict[str, Any]) -> list[BaseEvent]:
        message_id, text = str(item["id"]), str(item.get("text") or "")
        failure = item.get("failure")
        if failure is not None:
            self.failures.append(text)
        else:
            self.answered = True
        meta = {"retinue": {"intent": item.get("intent"), "failure": failure}}
        events: list[BaseEvent] = [
            TextMessageStartEvent(
                message_id=message_id, role="assistant", name=item.get("from"), metadata=meta
            )
        ]
        if text:
            events.append(TextMessageContentEvent(message_id=message_id, delta=text))
        events.append(TextMessageEndEvent(message_id=message_id))
        return events

    def _event(self, item: dict[str, Any]) -> list[BaseEvent]:
        word = str(item.get("event"))
        if item.get("chain") in self.chains:
            if word == "stop":
                self.cancelled = True
            elif word == "loop":
                self.loop = str(item.get("text") or "loop stopped")
        value = {"member": item.get("from"), "text": item.get("text"), "chain": item.get("chain")}
        if "members" in item:
            value["members"] = item["members"]
        return [CustomEvent(name=PREFIX + word, value=value)]

    # ------------------------------------------------------------------ tool calls
    def tool_record(self, record: Record) -> list[BaseEvent]:
        """The events of one `TOOL_KINDS` record of this chain (others make none)."""
        if record.chain_id not in self.chains:
            return []
        message = decode(record.data)
        if not isinstance(message, EventMessage):
            return []
        event = message.event
        if isinstance(event, ToolCallEvent):
            return self._call(event)
        if isinstance(event, ModelMessageEvent) and isinstance(event.message, dict):
            return self._results(event.run_id or event.agent_name, event.message)
        return []

    def _call(self, event: ToolCallEvent) -> list[BaseEvent]:
        run = event.run_id or event.agent_name
        call_id = f"{run}/{event.tool_call_id}"
        self._calls[(run, event.tool_call_id)] = call_id
        meta = {"retinue": {"member": event.agent_name}}
        name = bounded(event.tool_name, CHOICE_CHARS)
        return [
            ToolCallStartEvent(tool_call_id=call_id, tool_call_name=name, metadata=meta),
            ToolCallArgsEvent(tool_call_id=call_id, delta=args_json(event.args)),
            ToolCallEndEvent(tool_call_id=call_id),
        ]

    def _results(self, run: str, data: dict[str, Any]) -> list[BaseEvent]:
        """The results in a model request of a run: the calls this run's stream opened."""
        parts = data.get("parts")
        events: list[BaseEvent] = []
        for part in parts if isinstance(parts, list) else []:
            if not isinstance(part, dict) or part.get("part_kind") not in _RESULT_PARTS:
                continue
            call_id = self._calls.pop((run, str(part.get("tool_call_id"))), None)
            if call_id is None:  # an output tool's, or a call of an earlier run
                continue
            events.append(
                ToolCallResultEvent(
                    message_id=f"{call_id}/result",
                    tool_call_id=call_id,
                    content=part_text(part.get("content")),
                    role="tool",
                )
            )
        return events

    # ------------------------------------------------------------------ the end
    def end(
        self, thread_id: str, run_id: str, cut_off: str | None, pending: list[dict[str, Any]]
    ) -> BaseEvent:
        """The run's last event: finished (done, cancelled by a stop, or waiting for the
        person's answers to the `pending` calls of its work), or an error (`cut_off`: why
        the run could not be followed to its end)."""
        if cut_off is not None:
            return RunErrorEvent(message=cut_off, code=cut_off.replace(" ", "_"))
        if self.loop:
            return RunErrorEvent(message=self.loop, code="loop")
        if self.failures and not self.answered:
            return RunErrorEvent(message=self.failures[-1], code="failed")
        waiting = [card for card in pending if card.get("chain") in self.chains]
        outcome: RunFinishedOutcome = RunFinishedSuccessOutcome()
        if self.cancelled:
            outcome = RunFinishedCancelledOutcome()
        elif waiting:
            outcome = RunFinishedInterruptOutcome(interrupts=[interrupt(c) for c in waiting])
        return RunFinishedEvent(thread_id=thread_id, run_id=run_id, outcome=outcome)
