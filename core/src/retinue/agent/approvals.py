"""Tool calls that wait for the person's yes: one agent's parked run, its answers, its mail.

A call its policy names parks the run (`approval_policy`): the run ends with pydantic-ai's
`DeferredToolRequests`, the agent records the pending calls and tells the person once, and
stays free. Commands (`/approve`, `/deny`, `/pending`, `/stop`, `/budget`) are answered at
once; other mail waits, in order, until the run goes on. Once every call of the park is
answered, the parked turn's message is handled again and its run continues from where it
parked (`DeferredToolResults`): an approved call runs, a denied one returns the refusal
and its reason to the model as the tool's result.

Answers are strict: each names a pending call by its id; an answer to a call no longer
pending (answered, dropped with its chain, resumed past) is refused with why. The asked
and answered events are in the record, so a resumed team parks again and asks again.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from typing import Any, Protocol

from pydantic_ai.tools import DeferredToolRequests, DeferredToolResults, ToolDenied

from retinue.actors.address import ActorAddress
from retinue.actors.messages import Message
from retinue.agent.approval_policy import NOTE_KEY, RULE_KEY, parse_rule
from retinue.agent.approval_record import read_park
from retinue.agent.approval_texts import recorded_answer, refusal
from retinue.agent.events import (
    PendingCall,
    ToolApprovalAnsweredEvent,
    ToolApprovalAskedEvent,
    ToolApprovalHeldEvent,
)


class Cancellable(Protocol):
    """A started timer (`threading.Timer`)."""

    def cancel(self) -> None: ...


class ApprovalHost(Protocol):
    """What `Approvals` needs of its agent; `BaseAgent` is one."""

    myAddress: ActorAddress

    @property
    def current_message(self) -> Message | None: ...

    def notify_event(self, event: Any) -> None: ...

    def notify_human(self, text: str) -> None: ...


class Approvals:
    """One agent's parked run: its pending calls, their answers, and the mail it holds."""

    def __init__(self, host: ApprovalHost) -> None:
        self._host = host
        #: The parked turn's message; None when no run is parked.
        self._turn: Message | None = None
        self._pending: dict[str, PendingCall] = {}
        #: Answers given so far, by tool call id, until every pending call has one: to
        #: approvals, and to questions.
        self._answers: dict[str, bool | ToolDenied] = {}
        self._replies: dict[str, str] = {}
        #: The notes given with approvals, as the approved calls' metadata.
        self._notes: dict[str, dict[str, Any]] = {}
        #: Why each call that was asked is no longer pending, by its id.
        self._closed: dict[str, str] = {}
        #: Mail that arrived while parked, oldest first.
        self._held: list[Message] = []
        self._count = 0
        #: Whether the agent's runs may park (its policy names a tool).
        self.active = False
        #: Whether its runs may ask the person a question (`ask_person`): `/answer` is its.
        self.asks = False
        #: Set when every call is answered: the results the parked turn goes on with.
        self._ready: DeferredToolResults | None = None
        #: Every member asked to review a call here (their answers are read, even late).
        self._reviewers: set[str] = set()
        #: The timeouts of pending calls, by call id; cancelled when the call closes.
        self._timers: dict[str, Cancellable] = {}

    def commands(self) -> list[Callable[..., str]]:
        """The person's commands, for the agent's registry (what frontends list and complete;
        the agent reads their text itself: `approval_turns.command`); none when no call of
        this agent can wait."""
        if not self.active:
            return []
        return [self.approve, self.deny, *([self.answer] if self.asks else []), self.pending]

    @property
    def parked(self) -> bool:
        return self._turn is not None

    # ------------------------------------------------------------------ parking
    def calls_for(self, message: Message, requests: DeferredToolRequests) -> list[PendingCall]:
        """The pending calls a run of `message`'s turn ended with, numbered, with their rules."""
        calls = []
        kinds = [(call, "approval") for call in requests.approvals]
        kinds += [(call, "question") for call in requests.calls]
        for call, kind in kinds:
            self._count += 1
            rule = requests.metadata.get(call.tool_call_id, {}).get(RULE_KEY)
            options = parse_rule(rule) if rule else None
            calls.append(
                PendingCall(
                    id=str(self._count),
                    kind=kind,
                    tool=call.tool_name,
                    args=call.args_as_dict() if kind == "question" else call.args,
                    tool_call_id=call.tool_call_id,
                    rule=options.rule if options is not None else "",
                    asked_by=message.sender.name if message.sender is not None else None,
                    chain_id=message.chain_id,
                    reviewer=options.reviewer if options is not None else None,
                    timeout=options.timeout if options is not None else None,
                    on_timeout=options.on_timeout if options is not None else "deny",
                    asked_at=time.time(),
                )
            )
        return calls

    def park(self, message: Message, calls: list[PendingCall]) -> None:
        """The run of `message`'s turn ended waiting on `calls`: record them, tell once."""
        host = self._host
        self._park(message, calls)
        host.notify_event(
            ToolApprovalAskedEvent(agent=host.myAddress, calls=calls, message=message)
        )
        for waiting in self._held:  # still held from a park before: the record says so again
            host.notify_event(ToolApprovalHeldEvent(agent=host.myAddress, message=waiting))
        self._ask()

    def _park(self, message: Message, calls: list[PendingCall]) -> None:
        self._cancel_timers()
        self._reviewers.update(call.reviewer for call in calls if call.reviewer)
        self._turn = message
        self._pending = {call.id: call for call in calls}
        self._answers, self._replies, self._notes = {}, {}, {}
        self._ready = None

    def _ask(self) -> None:
        """Tell the person what waits for them, one line a call."""
        name = self._host.myAddress.name
        kinds = {call.kind for call in self._pending.values()}
        how = {
            "approval": "/approve ID or /deny ID REASON",
            "question": "/answer ID TEXT, or /deny ID REASON",
        }
        ways = " or ".join(how[kind] for kind in sorted(kinds))
        what = "your approval" if kinds == {"approval"} else "you"
        lines = [f"{name} waits for {what} (answer {name} with {ways}):"]
        lines.extend(call.describe() for call in self._pending.values())
        self._host.notify_human("\n".join(lines))

    def hold(self, message: Message) -> None:
        """Keep `message` until the parked run goes on (its turn comes then, in order); in
        the record too, as its turn is over (delivered again after a restart: held once)."""
        if any(held.id == message.id for held in self._held):
            return
        self._held.append(message)
        host = self._host
        host.notify_event(ToolApprovalHeldEvent(agent=host.myAddress, message=message))

    def is_parked_turn(self, message: Message) -> bool:
        return self._turn is not None and self._turn.id == message.id

    def take_held(self) -> list[Message]:
        """The mail held while parked, oldest first; none is held afterwards."""
        held, self._held = self._held, []
        return held

    def resolution_for(self, message: Message) -> DeferredToolResults | None:
        """The answers `message`'s parked run goes on with, once all are given (taken once)."""
        ready = self._ready
        if ready is None or self._turn is None or self._turn.id != message.id:
            return None
        self._turn, self._ready = None, None
        return ready

    def take_ready(self) -> Message | None:
        """The parked turn's message once every call is answered, to be handled again."""
        return self._turn if self._ready is not None else None

    # ------------------------------------------------------------------ answers
    def approve(self, call_id: str | None = None, note: str = "") -> str:
        """Let a parked call run: `/approve ID [note]` (the ID may go when one call waits)."""
        found = self._find(call_id, "/approve")
        if isinstance(found, str):
            return found
        if found.kind == "question":
            return f"/approve {found.id}: that is a question; /answer {found.id} TEXT answers it."
        self._answer(found, True, "approved", note)
        return f"Approved {found.tool} (call {found.id}).{self._still_waiting()}"

    def deny(self, call_id: str | None = None, reason: str = "") -> str:
        """Refuse a parked call: `/deny ID REASON`; the model reads the reason as its result."""
        found = self._find(call_id, "/deny")
        if isinstance(found, str):
            return found
        if not reason.strip():
            return f"/deny {found.id}: say why after the id (/deny {found.id} REASON)."
        self._answer(found, refusal(found, reason.strip()), "denied", reason.strip())
        return f"Denied {found.tool} (call {found.id}).{self._still_waiting()}"

    def answer(self, call_id: str | None = None, text: str = "") -> str:
        """Answer a question the model asked (`ask_person`): `/answer ID TEXT`."""
        found = self._find(call_id, "/answer")
        if isinstance(found, str):
            return found
        if found.kind != "question":
            return f"/answer {found.id}: that call waits for /approve or /deny."
        choices = found.args.get("choices") if isinstance(found.args, dict) else None
        if not text.strip() or (choices and text.strip() not in choices):
            allowed = f"one of: {', '.join(map(str, choices))}" if choices else "your answer"
            return f"/answer {found.id}: say {allowed} after the id."
        self._answer(found, text.strip(), "answered", text.strip())
        return f"Answered call {found.id}.{self._still_waiting()}"

    def pending(self) -> str:
        """The tool calls waiting for your approval here."""
        if not self._pending:
            return f"Nothing of {self._host.myAddress.name} waits for approval."
        return "\n".join(call.describe() for call in self._pending.values())

    def expire(self, call_id: str) -> str | None:
        """A pending call's timeout passed: deny it, or remind the person (its rule says
        which); the line for the person, or None when the call was answered meanwhile."""
        call = self._pending.get(call_id)
        if call is None:
            return None
        waited = f"{call.timeout:g} s" if call.timeout is not None else "its timeout"
        name = self._host.myAddress.name
        if call.on_timeout == "remind":
            self._timers.pop(call_id, None)
            return f"{name}: call {call.id} ({call.tool}) still waits for you after {waited}."
        reason = f"no answer within {waited}"
        self._answer(call, refusal(call, reason), "denied", reason, by="timeout")
        return f"{name}: denied {call.tool} (call {call.id}): {reason}.{self._still_waiting()}"

    def reviewed_by(self, name: str) -> bool:
        """Whether member `name` was asked to review a call here."""
        return name in self._reviewers

    def not_yours(self, call_id: str, command: str) -> str:
        """Why a reviewer's answer to call `call_id`, not one it was asked about, is refused."""
        found = self._find(call_id, command)
        if isinstance(found, str):
            return found
        return f"{command} {call_id}: refused, you were not asked to review that call."

    def watch(self, call_id: str, timer: Cancellable) -> None:
        """Keep `timer` (a call's timeout) until the call closes, to cancel it then."""
        self._timers[call_id] = timer

    def stopped(self) -> None:
        """The agent stopped: no timeout of its calls fires any more."""
        self._cancel_timers()

    def _cancel_timers(self) -> None:
        for timer in self._timers.values():
            timer.cancel()
        self._timers = {}

    @property
    def waiting(self) -> list[PendingCall]:
        """The calls still waiting, in the order they were asked."""
        return list(self._pending.values())

    def drop(self, why: str) -> str | None:
        """End the park without running its calls (its chain or run stopped); the line for
        the person, or None when nothing was parked."""
        if self._turn is None:
            return None
        dropped = list(self._pending.values())
        for call in dropped:
            self._close(call, "dropped", why)
        self._cancel_timers()
        self._turn, self._pending, self._ready = None, {}, None
        self._answers, self._replies, self._notes = {}, {}, {}
        names = ", ".join(f"{call.tool} (call {call.id})" for call in dropped)
        return (
            f"{self._host.myAddress.name} dropped the call(s) waiting for approval: {names}; {why}."
        )

    @property
    def chain_id(self) -> str | None:
        """The chain of the parked turn, if any."""
        return self._turn.chain_id if self._turn is not None else None

    @property
    def parked_ids(self) -> set[str]:
        """The tool call ids of the park's calls: waiting, or answered while it waits."""
        waiting = {call.tool_call_id for call in self._pending.values()}
        return waiting | self._answers.keys() | self._replies.keys()

    def _find(self, call_id: str | None, command: str) -> PendingCall | str:
        """The pending call an answer names, or the one line saying why none is."""
        if call_id is None:
            if len(self._pending) == 1:
                return next(iter(self._pending.values()))
            if not self._pending:
                return f"{command}: nothing waits for approval here."
            ids = ", ".join(self._pending)
            return f"{command}: several calls wait; name one: {ids}."
        key = call_id.strip()
        call = self._pending.get(key)
        if call is not None:
            return call
        closed = self._closed.get(key)
        if closed is not None:
            return f"{command} {key}: refused, that call is no longer pending ({closed})."
        waiting = ", ".join(self._pending) or "none"
        return f"{command} {key}: refused, no call {key} was asked for here; pending: {waiting}."

    def _answer(
        self,
        call: PendingCall,
        answer: bool | ToolDenied | str,
        verdict: str,
        note: str,
        *,
        by: str | None = None,
    ) -> None:
        self._given(call, answer, note)
        self._close(call, verdict, note, by=by)
        if not self._pending:
            self._ready = DeferredToolResults(
                approvals=dict(self._answers), calls=dict(self._replies), metadata=self._notes
            )

    def _given(self, call: PendingCall, answer: bool | ToolDenied | str, note: str = "") -> None:
        if isinstance(answer, str):
            self._replies[call.tool_call_id] = answer
        else:
            self._answers[call.tool_call_id] = answer
        if answer is True and note:  # the model reads it with the tool's result
            self._notes[call.tool_call_id] = {NOTE_KEY: note}

    def _close(self, call: PendingCall, verdict: Any, note: str, *, by: str | None = None) -> None:
        host = self._host
        self._pending.pop(call.id, None)
        timer = self._timers.pop(call.id, None)
        if timer is not None:
            timer.cancel()
        reason = f"already {verdict}" if verdict != "dropped" else f"dropped: {note}"
        self._closed[call.id] = reason
        current = host.current_message
        who = by or (current.sender.name if current is not None and current.sender else None)
        host.notify_event(
            ToolApprovalAnsweredEvent(
                agent=host.myAddress, call_id=call.id, verdict=verdict, note=note, by=who
            )
        )

    def _still_waiting(self) -> str:
        if self._pending:
            return f" Still waiting: {', '.join(self._pending)}."
        return " The run goes on."

    # ------------------------------------------------------------------ after a restart
    def restore(self, events: Iterable[object]) -> bool:
        """Park again what the record left pending, and ask the person again; True if any."""
        record = read_park(events)
        self._count = max(self._count, record.last_id)
        for call_id, answer in record.answered.items():
            verdict = answer.verdict
            self._closed[call_id] = (
                f"already {verdict}" if verdict != "dropped" else f"dropped: {answer.note}"
            )
        waiting = record.waiting
        if record.asked is None or not waiting:
            return False
        self._park(record.asked.message, waiting)
        self._held = record.held
        for call in record.asked.calls:  # answered before the crash, the rest not yet
            given = record.answered.get(call.id)
            if given is not None and given.verdict != "dropped":
                self._given(call, recorded_answer(call, given), given.note)
        me = self._host.myAddress
        if record.asked.agent.team_id != me.team_id:  # a fork's member: its stream says so too
            for event in record.restated(me):
                self._host.notify_event(event)
        self._ask()
        return True
