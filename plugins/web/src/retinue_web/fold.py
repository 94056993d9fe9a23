"""`TeamFold`: a team's record folded into what the page shows, one record at a time.

Each record (`retinue.store.Record`, in position order) changes a little of the state: a
flow line, one member's row, the budget, the commands, a panel. `add` folds one and returns
that change as a small JSON-ready *delta*; the page applies deltas in order, so the server
streams only what changed, never the whole state again. `snapshot` is the whole state once,
for a page that (re)loads. Members, who is working and their commands come from the
console's `TeamTracker` (what `retinue run` shows); usage and the budget's tally from the
kernel's `TeamUsage`, the fold the team budget itself uses. The delta and its flow lines
are `delta`'s, the roster's rows `roster`'s, the events that only say something
`flow_events`', the calls waiting for the person `approvals`'.
"""

from __future__ import annotations

import logging
from typing import Any

from retinue import (
    AgentMessage,
    BudgetExhaustedEvent,
    BudgetLimitsChangedEvent,
    CancelMessage,
    ChainStoppedEvent,
    ErrorMessage,
    EventMessage,
    FailureNotice,
    LlmUsageEvent,
    Message,
    Panel,
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

from retinue_web.approvals import KINDS as APPROVAL_KINDS
from retinue_web.approvals import PendingCards
from retinue_web.delta import Delta, cut, name_of
from retinue_web.flow_events import said
from retinue_web.roster import Chain, Member, chains_json, member_json

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
        *APPROVAL_KINDS,
    }
)
#: Intents by which an agent hands work on and then waits for an answer.
_DELEGATING = frozenset({"request", "instruction"})
_RUN_ENDS = {
    "interrupted": "run interrupted",
    "usage_limit": "run stopped at its usage limit",
    "timeout": "run timed out",
    "failed": "run failed",
}


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
        self.pending = PendingCards()  # the calls waiting for the person
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
        delta = Delta(record.position)
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

    def _render(self, delta: Delta) -> dict[str, Any] | None:
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
        if delta.approvals["asked"] or delta.approvals["closed"]:
            out["approvals"] = delta.approvals
        if not out:
            return None
        out["pos"] = delta.position
        return out

    def _fold(self, message: Message, record: Record, delta: Delta) -> None:
        if isinstance(message, SentMessage):
            self._sent(message, record, delta)
        elif isinstance(message, EventMessage):
            self._event(message, record, delta)
        elif isinstance(message, StartMessage):
            self._start(message, record, delta)
        elif isinstance(message, StopMessage):
            self._stop(message, record, delta)
        elif isinstance(message, ErrorMessage):
            who = name_of(message.sender) or "?"
            text = f"{message.exception_type}: {message.exception_value}"
            member = self.members.get(who)
            if member is not None:
                member.failed = cut(text)
                if member.state != "working":
                    member.settle()
                delta.member(member)
            delta.event(record, "error", who, text)

    def _start(self, message: StartMessage, record: Record, delta: Delta) -> None:
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
        parent = name_of(message.parent)
        hired_by = (
            parent if message.parent is not None and parent != name_of(message.recipient) else None
        )
        member = self.members.get(sender.name)
        if member is None or member.left:
            member = Member(sender.name, sender.role, sender.is_user_proxy, hired_by)
            self.members[sender.name] = member
        delta.member(member)
        if hired_by is not None:
            delta.event(record, "hire", hired_by, f"hired {sender.name} ({sender.role})")

    def _stop(self, message: StopMessage, record: Record, delta: Delta) -> None:
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
            self.pending.left(sender.name, delta)
            delta.event(record, "left", sender.name, "left the team")
        delta.member(member)

    def _sent(self, report: SentMessage, record: Record, delta: Delta) -> None:
        sent = report.message
        sender, recipient = name_of(sent.sender), name_of(sent.recipient)
        if isinstance(sent, CancelMessage):
            item = delta.message(record, sent, "cancel", "")
        elif isinstance(sent, AgentMessage):
            item = delta.message(record, sent, sent.type, cut(sent.content))
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

    def _event(self, message: EventMessage, record: Record, delta: Delta) -> None:
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
        elif isinstance(event, ChainStoppedEvent):
            self._chain_stopped(event, record, delta)
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
        elif not self.pending.fold(event, record, delta):
            said(event, record, delta)

    def _run_started(
        self, event: RunStartedEvent, message: EventMessage, record: Record, delta: Delta
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
        self, event: RunFinishedEvent, message: EventMessage, record: Record, delta: Delta
    ) -> None:
        self._note_turn(message, record)
        member = self.members.get(event.agent_name)
        if event.status in ("failed", "timeout") and member is not None:
            member.failed = cut(event.error or event.status)
        if member is not None and event.agent_name not in self.tracker.working():
            member.settle()
            delta.member(member)
            delta.chains = True
        if event.status in _RUN_ENDS:
            text = _RUN_ENDS[event.status] + (f": {event.error}" if event.error else "")
            delta.event(record, "run", event.agent_name, cut(text), parent=message.parent_id)

    def _note_turn(self, message: EventMessage, record: Record) -> None:
        turn = message.parent_id
        if turn is None:
            return
        first, _ = self.turns.get(turn, (record.position, record.position))
        self.turns[turn] = (first, record.position)

    def _chain_stopped(self, event: ChainStoppedEvent, record: Record, delta: Delta) -> None:
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
            delta.event(record, "loop", event.agent.name, cut(text), chain=stop.chain_id)
        else:
            text = f"task stopped for {', '.join(stop.members) or 'nobody'}"
            delta.event(record, "stop", event.agent.name, text, chain=stop.chain_id)
        if delta.flow is not None:
            delta.flow["members"] = list(stop.members)
        delta.chains = True

    # ------------------------------------------------------------------ reading
    def member_json(self, member: Member) -> dict[str, Any]:
        return member_json(member, self.usage)

    def budget_json(self) -> dict[str, Any]:
        usage = self.usage.model_dump(exclude={"by_member"})
        return {"limits": self.limits.model_dump(), "usage": usage, "spent": self.budget_spent}

    def chains_json(self) -> list[dict[str, Any]]:
        """The tasks with members working on them now, each with who and what it asked."""
        return chains_json(self.members, self.chains)

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
            "approvals": self.pending.json(),
            "flow": flow,
            "flow_more": len(flow) < len(self.flow),
        }
