"""`TeamFold`: a team's record folded into what the page shows, one record at a time.

Each record (`retinue.store.Record`, in position order) changes a little of the state: a
flow line, one member's row, the budget, the commands, a panel. `add` folds one and returns
that change as a small JSON-ready *delta*; the page applies deltas in order, so the server
streams only what changed, never the whole state again. `snapshot` is the whole state once,
for a page that (re)loads. Members, who is working and their commands come from the
console's `TeamTracker` (what `retinue run` shows); usage and the budget's tally from the
kernel's `TeamUsage`, the fold the team budget itself uses.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from typing import Any

from retinue import (
    AgentMessage,
    BudgetExhaustedEvent,
    BudgetLimitsChangedEvent,
    CancelMessage,
    ChainMessageDroppedEvent,
    ChainResumedEvent,
    ChainStoppedEvent,
    CommandsAnnouncedEvent,
    DeadLetterEvent,
    ErrorMessage,
    EventMessage,
    FailureNotice,
    LlmUsageEvent,
    Message,
    Panel,
    RoutingSkippedEvent,
    RunFinishedEvent,
    RunStartedEvent,
    SentMessage,
    StartMessage,
    StopMessage,
    TeamConfig,
    TeamUsage,
    TeamUsageLimits,
)
from retinue.console import TeamTracker
from retinue.record import Record, charge_event, decode

logger = logging.getLogger(__name__)

#: The record kinds the fold reads; the big ones (model messages, checkpoints) are left
#: in the store until a turn is opened.
FOLD_KINDS = frozenset(
    {
        "SentMessage",
        "StartMessage",
        "StopMessage",
        "ErrorMessage",
        "RunStartedEvent",
        "RunFinishedEvent",
        "LlmUsageEvent",
        "CommandsAnnouncedEvent",
        "RoutingSkippedEvent",
        "ChainStoppedEvent",
        "ChainMessageDroppedEvent",
        "ChainResumedEvent",
        "BudgetExhaustedEvent",
        "BudgetLimitsChangedEvent",
        "DeadLetterEvent",
    }
)
#: The most characters of one text a flow line carries (the rest is said to be cut).
TEXT_LIMIT = 20_000
#: Intents by which an agent hands work on and then waits for an answer.
_DELEGATING = frozenset({"request", "instruction"})
_RUN_ENDS = {
    "interrupted": "run interrupted",
    "usage_limit": "run stopped at its usage limit",
    "timeout": "run timed out",
    "failed": "run failed",
}


def _cut(text: str) -> str:
    if len(text) <= TEXT_LIMIT:
        return text
    return text[:TEXT_LIMIT] + f"… ({len(text) - TEXT_LIMIT} more characters)"


def _name(address: Any) -> str | None:
    name = getattr(address, "name", None)
    return name if isinstance(name, str) else None


@dataclass
class Member:
    """One row of the roster: who, what it is doing, what it spent."""

    name: str
    role: str
    person: bool
    hired_by: str | None
    state: str = "idle"
    detail: str = ""
    chain: str | None = None
    left: bool = False
    failed: str = ""
    waiting_for: dict[tuple[str, str], None] = field(default_factory=dict)

    def settle(self) -> None:
        """The state when no run is in flight: failed, waiting or idle."""
        self.chain = None
        if self.left:
            self.state, self.detail = "left", ""
        elif self.failed:
            self.state, self.detail = "failed", self.failed
        elif self.waiting_for:
            names = dict.fromkeys(member for _, member in self.waiting_for)
            self.state, self.detail = "waiting", "for " + ", ".join(names)
        else:
            self.state, self.detail = "idle", ""


@dataclass
class Chain:
    """A task the person started: where it went first and what it asked."""

    chain_id: str
    root: str
    text: str
    position: int


class TeamFold:
    """The state of one team as its record so far says (see the module docstring).

    Not thread-safe: its owner (`TeamFeed`) holds a lock around every call.
    """

    def __init__(self, team_id: str, panels: list[Panel] | None = None) -> None:
        self.team_id = team_id
        self.name = ""
        self.position = 0
        self.tracker = TeamTracker()
        self.usage = TeamUsage()
        self.limits = TeamUsageLimits()
        self.members: dict[str, Member] = {}
        self.chains: dict[str, Chain] = {}
        self.flow: list[dict[str, Any]] = []
        self.flow_positions: list[int] = []  # each flow line's position, for paging back
        #: message id -> (first, last) position of the runs of the turn that handled it
        self.turns: dict[str, tuple[int, int]] = {}
        self.stopped = False  # the orchestrator's own stop is in the record
        self.budget_spent = ""
        self.panels = {panel.name: panel for panel in panels or []}
        self._panel_kinds: dict[str, list[Panel]] = {}
        for panel in self.panels.values():
            for kind in panel.kinds:
                self._panel_kinds.setdefault(kind, []).append(panel)

    @property
    def kinds(self) -> frozenset[str]:
        """Every record kind this fold (and its panels) reads."""
        return FOLD_KINDS | frozenset(self._panel_kinds)

    # ------------------------------------------------------------------ folding
    def add(self, record: Record) -> dict[str, Any] | None:
        """Fold one record; the delta it makes for the page, or None when it changes nothing."""
        self.position = max(self.position, record.position)
        try:
            message = decode(record.data)
        # a record of a newer retinue, damaged data: left out
        except Exception as exc:  # noqa: BLE001
            logger.warning("record %d of team %s left out: %s", record.position, self.team_id, exc)
            return None
        delta = _Delta(record.position)
        for panel in self._panel_kinds.get(record.kind, ()):
            try:
                panel.on_message(message)
            except Exception:
                logger.exception("panel %s failed on record %d", panel.name, record.position)
            delta.panels.append(panel.name)
        if record.kind in FOLD_KINDS:
            self.tracker.add(message)
            self._fold(message, record, delta)
        if delta.flow is not None:
            self.flow.append(delta.flow)
            self.flow_positions.append(record.position)
        return self._render(delta)

    def _render(self, delta: _Delta) -> dict[str, Any] | None:
        out: dict[str, Any] = {}
        if delta.flow is not None:
            out["flow"] = delta.flow
        if delta.members:
            out["members"] = [self.member_json(m) for m in delta.members.values()]
        if delta.commands:
            out["commands"] = delta.commands
        if delta.budget:
            out["budget"] = self.budget_json()
        if delta.chains:
            out["chains"] = self.chains_json()
        if delta.panels:
            out["panels"] = delta.panels
        if delta.team:
            out["team"] = self.team_json()
        if not out:
            return None
        out["pos"] = delta.position
        return out

    def _fold(self, message: Message, record: Record, delta: _Delta) -> None:
        if isinstance(message, SentMessage):
            self._sent(message, record, delta)
        elif isinstance(message, EventMessage):
            self._event(message, record, delta)
        elif isinstance(message, StartMessage):
            self._start(message, record, delta)
        elif isinstance(message, StopMessage):
            self._stop(message, record, delta)
        elif isinstance(message, ErrorMessage):
            who = _name(message.sender) or "?"
            text = f"{message.exception_type}: {message.exception_value}"
            member = self.members.get(who)
            if member is not None:
                member.failed = _cut(text)
                if member.state != "working":
                    member.settle()
                delta.member(member)
            delta.event(record, "error", who, text)

    def _start(self, message: StartMessage, record: Record, delta: _Delta) -> None:
        sender = message.sender
        if sender is None:
            return
        if sender.agent_id == self.team_id:  # the orchestrator: the team's own start
            config = message.config
            self.name = config.name if isinstance(config, TeamConfig) else sender.name
            if isinstance(config, TeamConfig) and config.budget is not None:
                self.limits = config.budget
                delta.budget = True
            return
        if not message.member:
            return
        parent = _name(message.parent)
        hired_by = (
            parent if message.parent is not None and parent != _name(message.recipient) else None
        )
        member = self.members.get(sender.name)
        if member is None or member.left:
            member = Member(sender.name, sender.role, sender.is_user_proxy, hired_by)
            self.members[sender.name] = member
        delta.member(member)
        if hired_by is not None:
            delta.event(record, "hire", hired_by, f"hired {sender.name} ({sender.role})")

    def _stop(self, message: StopMessage, record: Record, delta: _Delta) -> None:
        sender = message.sender
        if sender is None:
            return
        if sender.agent_id == self.team_id:
            self.stopped = True
            delta.team = True
            return
        member = self.members.get(sender.name)
        if member is None:
            return
        if message.shutdown:  # the team ended; the member did not leave it
            member.settle()
        else:
            member.left = True
            member.settle()
            delta.event(record, "left", sender.name, "left the team")
        delta.member(member)

    def _sent(self, report: SentMessage, record: Record, delta: _Delta) -> None:
        sent = report.message
        sender, recipient = _name(sent.sender), _name(sent.recipient)
        if isinstance(sent, CancelMessage):
            item = delta.message(record, sent, "cancel", "")
        elif isinstance(sent, AgentMessage):
            item = delta.message(record, sent, sent.type, _cut(sent.content))
            if isinstance(sent, FailureNotice):
                item["failure"] = {"kind": sent.failure, "member": sent.member}
        else:
            return
        from_person = sent.sender is not None and sent.sender.is_user_proxy
        to_person = sent.recipient is not None and sent.recipient.is_user_proxy
        item["from_person"], item["to_person"] = from_person, to_person
        chain = sent.chain_id
        if chain is None or not isinstance(sent, AgentMessage):
            return
        if from_person and chain == sent.id and recipient is not None:
            self.chains[chain] = Chain(chain, recipient, sent.content[:120], record.position)
        waiting = self.members.get(sender or "")
        delegates = sent.type in _DELEGATING and not (from_person or to_person)
        if waiting is not None and delegates and recipient is not None:
            waiting.waiting_for[(chain, recipient)] = None
            if waiting.state != "working":
                waiting.settle()
            delta.member(waiting)
        answered = self.members.get(recipient or "")
        if answered is not None and (chain, sender or "") in answered.waiting_for:
            del answered.waiting_for[(chain, sender or "")]
            if answered.state != "working":
                answered.settle()
            delta.member(answered)

    def _event(self, message: EventMessage, record: Record, delta: _Delta) -> None:
        event = message.event
        if isinstance(event, RunStartedEvent):
            self._run_started(event, message, record, delta)
        elif isinstance(event, RunFinishedEvent):
            self._run_finished(event, message, record, delta)
        elif isinstance(event, LlmUsageEvent):
            charge_event(self.usage, event)  # as the team budget counts it
            delta.budget = True
            if event.agent_name in self.members:
                delta.member(self.members[event.agent_name])
        elif isinstance(event, CommandsAnnouncedEvent):
            delta.commands[event.agent.name] = [c.model_dump() for c in event.commands]
        elif isinstance(event, RoutingSkippedEvent):
            text = f"→ {event.recipient} not delivered: {event.reason}"
            delta.event(record, "skipped", event.agent.name, _cut(text))
        elif isinstance(event, ChainStoppedEvent):
            self._chain_stopped(event, record, delta)
        elif isinstance(event, ChainMessageDroppedEvent):
            text = f"dropped a message from {event.sender or '?'}: {event.reason}"
            delta.event(record, "dropped", event.agent.name, text)
        elif isinstance(event, ChainResumedEvent):
            text = f"let the stopped task go on ({event.delivered} held delivered)"
            delta.event(record, "resumed", event.agent.name, text)
        elif isinstance(event, BudgetLimitsChangedEvent):
            self.limits = event.limits
            self.budget_spent = ""
            delta.budget = True
            delta.event(record, "budget", event.changed_by or "?", "changed the team's budget")
        elif isinstance(event, BudgetExhaustedEvent):
            spent = "; ".join(f"{b.metric}: {b.used:g} of {b.limit:g}" for b in event.breaches)
            self.budget_spent = spent
            delta.budget = True
            delta.event(
                record, "budget", event.refused_member, f"the team's budget is spent ({spent})"
            )
        elif isinstance(event, DeadLetterEvent):
            text = f"{event.message_type} to {event.recipient}, who had stopped, was not delivered"
            delta.event(record, "dead_letter", event.sender or "?", text)

    def _run_started(
        self, event: RunStartedEvent, message: EventMessage, record: Record, delta: _Delta
    ) -> None:
        self.usage.count_run(event.agent_name)
        delta.budget = True
        self._note_turn(message, record)
        member = self.members.get(event.agent_name)
        if member is None:
            return
        member.state, member.detail, member.chain, member.failed = (
            "working",
            "in a run",
            message.chain_id,
            "",
        )
        delta.member(member)
        delta.chains = True

    def _run_finished(
        self, event: RunFinishedEvent, message: EventMessage, record: Record, delta: _Delta
    ) -> None:
        self._note_turn(message, record)
        member = self.members.get(event.agent_name)
        if event.status in ("failed", "timeout") and member is not None:
            member.failed = _cut(event.error or event.status)
        if member is not None and event.agent_name not in self.tracker.working():
            member.settle()
            delta.member(member)
            delta.chains = True
        if event.status in _RUN_ENDS:
            text = _RUN_ENDS[event.status] + (f": {event.error}" if event.error else "")
            delta.event(record, "run", event.agent_name, _cut(text), parent=message.parent_id)

    def _note_turn(self, message: EventMessage, record: Record) -> None:
        turn = message.parent_id
        if turn is None:
            return
        first, _ = self.turns.get(turn, (record.position, record.position))
        self.turns[turn] = (first, record.position)

    def _chain_stopped(self, event: ChainStoppedEvent, record: Record, delta: _Delta) -> None:
        stop = event.stop
        for name in stop.members:
            member = self.members.get(name)
            if member is None:
                continue
            for key in [key for key in member.waiting_for if key[0] == stop.chain_id]:
                del member.waiting_for[key]
            if member.state != "working":
                member.settle()
            delta.member(member)
        if stop.kind == "loop":
            text = f"loop stopped: {stop.render_path()}: {stop.reason}"
            delta.event(record, "loop", event.agent.name, _cut(text), chain=stop.chain_id)
        else:
            text = f"task stopped for {', '.join(stop.members) or 'nobody'}"
            delta.event(record, "stop", event.agent.name, text, chain=stop.chain_id)
        if delta.flow is not None:
            delta.flow["members"] = list(stop.members)
        delta.chains = True

    # ------------------------------------------------------------------ reading
    def member_json(self, member: Member) -> dict[str, Any]:
        spent = self.usage.by_member.get(member.name)
        usage = spent.model_dump() if spent is not None else None
        return {
            "name": member.name,
            "role": member.role,
            "person": member.person,
            "hired_by": member.hired_by,
            "state": member.state,
            "detail": member.detail,
            "chain": member.chain,
            "usage": usage,
        }

    def budget_json(self) -> dict[str, Any]:
        usage = self.usage.model_dump(exclude={"by_member"})
        return {"limits": self.limits.model_dump(), "usage": usage, "spent": self.budget_spent}

    def chains_json(self) -> list[dict[str, Any]]:
        """The tasks with members working on them now, each with who and what it asked."""
        working: dict[str, list[str]] = {}
        for member in self.members.values():
            if member.state == "working" and member.chain is not None:
                working.setdefault(member.chain, []).append(member.name)
        found = []
        for chain_id, names in working.items():
            chain = self.chains.get(chain_id)
            found.append(
                {
                    "chain": chain_id,
                    "root": chain.root if chain is not None else None,
                    "text": chain.text if chain is not None else "",
                    "working": names,
                }
            )
        return found

    def commands_json(self) -> dict[str, list[dict[str, Any]]]:
        return {
            member: [c.model_dump() for c in self.tracker.commands(member)]
            for member in self.members
        }

    def team_json(self) -> dict[str, Any]:
        return {"id": self.team_id, "name": self.name or self.team_id[:8], "ended": self.stopped}

    def snapshot(self, flow_limit: int) -> dict[str, Any]:
        """The whole state, with the last `flow_limit` flow lines."""
        flow = self.flow[-flow_limit:] if flow_limit > 0 else []
        return {
            "position": self.position,
            "team": self.team_json(),
            "members": [self.member_json(m) for m in self.members.values()],
            "budget": self.budget_json(),
            "chains": self.chains_json(),
            "commands": self.commands_json(),
            "panels": [{"name": p.name, "title": p.title} for p in self.panels.values()],
            "flow": flow,
            "flow_more": len(flow) < len(self.flow),
        }


class _Delta:
    """What one record changed, collected while it is folded."""

    def __init__(self, position: int) -> None:
        self.position = position
        self.flow: dict[str, Any] | None = None
        self.members: dict[str, Member] = {}
        self.commands: dict[str, list[dict[str, Any]]] = {}
        self.panels: list[str] = []
        self.budget = False
        self.chains = False
        self.team = False

    def member(self, member: Member) -> None:
        self.members[member.name] = member

    def message(self, record: Record, sent: Message, intent: str, text: str) -> dict[str, Any]:
        self.flow = {
            "pos": record.position,
            "kind": "message",
            "id": sent.id,
            "type": type(sent).__name__,
            "from": _name(sent.sender),
            "to": _name(sent.recipient),
            "intent": intent,
            "text": text,
            "chain": sent.chain_id,
            "parent": sent.parent_id,
            "time": record.timestamp,
        }
        return self.flow

    def event(
        self,
        record: Record,
        event: str,
        who: str,
        text: str,
        *,
        chain: str | None = None,
        parent: str | None = None,
    ) -> None:
        self.flow = {
            "pos": record.position,
            "kind": "event",
            "event": event,
            "from": who,
            "text": text,
            "chain": chain or record.chain_id,
            "parent": parent or record.parent_id,
            "time": record.timestamp,
        }
