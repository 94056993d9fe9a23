"""Task chains as one agent meets them: a cascading stop, closed chains, loops, `/continue`.

The team's `ChainLedger` (reached through the agent's `Team` view, never by an ask) keeps
the counts; this module is what an agent does with them:

* **a cascading stop** (`stop_downstream`): a person's `/stop` closes the chain for its
  target and for every member the target delegated to, transitively, in one step of the
  ledger; then each of them gets a `CancelMessage(stop_chain=...)` (which ends a run of
  that chain at once and of no other chain) and the person is told once, with the list;
* **a closed chain** (`admit_turn`, `drop_chain_mail`): a stopped member's queued or late
  mail of that chain is dropped, each drop an event, so a late reply cannot restart work
  downstream; a person writing into the chain opens it again;
* **routing** (`admit_output`): every message a turn routes is counted; one the ledger
  refuses is skipped like an unreachable recipient, and the message that stops a loop
  tells the person the path, once; refused messages of a loop are kept for `/continue`;
* **`/continue [extra]`** (`resume_chains`): opens the stopped chains this agent took part
  in, with fresh counts (and `extra` messages let through unchecked), and delivers what
  the loop held.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

from retinue.actors.address import ActorAddress
from retinue.actors.messages import CancelMessage, Message
from retinue.agent.cancel import from_operator
from retinue.agent.events import (
    ChainMessageDroppedEvent,
    ChainMessageHeldEvent,
    ChainResumedEvent,
    ChainStoppedEvent,
)
from retinue.agent.messages import AgentMessage

if TYPE_CHECKING:
    from retinue.actors.runtime_api import Runtime
    from retinue.team.chains import ChainStop, TeamChains
    from retinue.team.view import Team

logger = logging.getLogger(__name__)

RUN_INTERRUPTED = "Run interrupted."
"""What the person is told when a stop ended a run and nothing downstream had to stop."""


class ChainAgent(Protocol):
    """The part of an agent this module uses; `BaseAgent` is one."""

    myAddress: ActorAddress
    orchestrator: ActorAddress | None

    @property
    def team(self) -> Team | None: ...

    @property
    def system(self) -> Runtime: ...

    @property
    def current_message(self) -> Message | None: ...

    def send(self, recipient: ActorAddress, message: Message) -> None: ...

    def stamp(self, recipient: ActorAddress, message: Message) -> Message: ...

    def notify_event(self, event: Any) -> None: ...

    def notify_human(self, text: str) -> None: ...

    def consume_mailbox(self, predicate: Any) -> list[Message]: ...


class TeamHolder(Protocol):
    """An agent with a team view: all `ledger_of` needs."""

    myAddress: ActorAddress

    @property
    def team(self) -> Team | None: ...


def ledger_of(agent: TeamHolder) -> TeamChains | None:
    """The team's chain ledger; None for an agent outside any team (or whose team is gone:
    an orchestrator that has stopped, as at shutdown, leaves nothing to count for)."""
    team = agent.team
    if team is None:
        return None
    try:
        return team.chains
    except RuntimeError as exc:
        logger.debug("%s: no chain ledger: %s", agent.myAddress.name, exc)
        return None


def member_list(addresses: Sequence[ActorAddress]) -> str:
    """`@A, @B and @C`."""
    listed = [a.name for a in addresses]
    if len(listed) <= 1:
        return "".join(listed)
    return ", ".join(listed[:-1]) + " and " + listed[-1]


def _tell(agent: ChainAgent, cancel: Message, text: str) -> None:
    """Answer the person who asked (their proxy), else the team's person."""
    sender = cancel.sender
    if sender is not None and sender.is_user_proxy:
        agent.send(sender, AgentMessage(content=text, type="notification", parent_id=cancel.id))
    else:
        agent.notify_human(text)


# ---------------------------------------------------------------------- the cascading stop
def stop_downstream(
    agent: ChainAgent, cancel: Message, chain_id: str | None, *, interrupted: bool
) -> bool:
    """Stop `agent`'s work in a chain and everything it handed on there; tell the person once.

    `chain_id` is the chain of the run the cancel interrupted (`interrupted`), or None for
    an idle agent: then the latest chain it delegated in. False when nothing was stopped
    (an idle agent that set nothing going): the caller gives its usual answer.
    """
    ledger = ledger_of(agent)
    me = agent.myAddress
    if ledger is not None and chain_id is None:
        chain_id = ledger.latest_delegated(me.name)
    if ledger is None or chain_id is None:
        if interrupted:
            _tell(agent, cancel, RUN_INTERRUPTED)
        return interrupted
    by = cancel.sender.name if cancel.sender is not None else None
    stopped = ledger.stop_downstream(chain_id, me, by=by, include_member=interrupted)
    if not stopped:
        return False
    others = [member for member in stopped if member != me]
    for member in others:
        agent.send(member, CancelMessage(stop_chain=chain_id, chain_id=chain_id))
    dropped = drop_chain_mail(agent, chain_id)
    stop = ledger.stop_of(chain_id)
    if stop is not None:
        agent.notify_event(ChainStoppedEvent(agent=me, stop=stop))
    if not others:
        _tell(agent, cancel, RUN_INTERRUPTED)
        return True
    logger.info("%s: stopped chain %s for %s", me.name, chain_id[:8], member_list(stopped))
    what = "its run and the work it handed on" if interrupted else "the work it handed on"
    plural = "message was" if dropped == 1 else "messages were"
    queued = f" {dropped} queued {plural} dropped." if dropped else ""
    _tell(
        agent,
        cancel,
        f"Stopped {me.name}'s task ({what}): {member_list(stopped)}.{queued} Late mail of "
        f"that task to them is dropped; send /continue to {me.name} to open it again.",
    )
    return True


# ---------------------------------------------------------------------- closed chains
def drop_chain_mail(agent: ChainAgent, chain_id: str) -> int:
    """Drop the queued mail of a chain stopped for `agent`; each drop is an event."""
    ledger = ledger_of(agent)
    me = agent.myAddress
    if ledger is None or not ledger.is_stopped(chain_id, me.name):
        return 0
    taken = agent.consume_mailbox(
        lambda m: isinstance(m, AgentMessage) and m.chain_id == chain_id and not from_operator(m)
    )
    for message in taken:
        _report_drop(agent, message, "its task chain was stopped")
    return len(taken)


def _report_drop(agent: ChainAgent, message: Message, reason: str) -> None:
    me = agent.myAddress
    logger.info("%s: dropped %s of stopped chain", me.name, message.id[:8])
    agent.notify_event(
        ChainMessageDroppedEvent(
            agent=me,
            chain_id=message.chain_id or "",
            message_id=message.id,
            sender=message.sender.name if message.sender is not None else None,
            reason=reason,
        )
    )


def admit_turn(agent: ChainAgent, message: Message) -> bool:
    """Whether `message` gets its turn: mail of a chain stopped for this agent does not.

    A person's message into a stopped chain opens it again (what its loop held is
    discarded: the person's new words come instead).
    """
    chain_id = message.chain_id
    ledger = ledger_of(agent)
    if ledger is None or chain_id is None:
        return True
    if from_operator(message):
        if ledger.stop_of(chain_id) is not None:
            stop, held = ledger.reopen(chain_id)
            if stop is not None:
                agent.notify_event(ChainResumedEvent(agent=agent.myAddress, stop=stop, delivered=0))
                if held:
                    logger.info("%d held messages discarded: the person wrote", len(held))
        return True
    if ledger.is_stopped(chain_id, agent.myAddress.name):
        _report_drop(agent, message, "its task chain was stopped")
        return False
    return True


# ---------------------------------------------------------------------- routing
def sender_refusal(agent: ChainAgent) -> str | None:
    """Why nothing this turn routes may go (a `/stop` closed its chain for this agent), or None.

    Checked before any recipient is resolved, so a stopped member's late output hires nobody.
    """
    ledger = ledger_of(agent)
    current = agent.current_message
    chain_id = current.chain_id if current is not None else None
    if ledger is None or chain_id is None or not ledger.is_stopped(chain_id, agent.myAddress.name):
        return None
    stop = ledger.stop_of(chain_id)
    return f"this task chain was {stop.reason if stop is not None else 'stopped'}"


def admit_output(
    agent: ChainAgent, recipient: ActorAddress, message: AgentMessage, *, progress: bool
) -> str | None:
    """Count a message a turn is about to route; why it may not go, or None.

    The message that stops a loop tells the person the path, once; a refused message of a
    loop is kept (stamped as it would have gone) for `/continue`.
    """
    ledger = ledger_of(agent)
    current = agent.current_message
    chain_id = current.chain_id if current is not None else None
    if ledger is None or chain_id is None:
        return None
    admission = ledger.admit(
        chain_id, agent.myAddress, recipient, message.type, message.content, progress=progress
    )
    if admission.allowed:
        return None
    if admission.stop is not None:  # the stop first: the record reads stop, then what it held
        _loop_found(agent, admission.stop)
    if admission.hold:
        held = agent.stamp(recipient, message)
        if ledger.hold(chain_id, held):
            agent.notify_event(
                ChainMessageHeldEvent(agent=agent.myAddress, chain_id=chain_id, message=held)
            )
        else:
            logger.warning(
                "%s: a stopped chain holds too many messages; one is lost", agent.myAddress
            )
    return admission.reason


def _loop_found(agent: ChainAgent, stop: ChainStop) -> None:
    me = agent.myAddress
    logger.warning("%s: loop in chain %s: %s", me.name, stop.chain_id[:8], stop.reason)
    agent.notify_event(ChainStoppedEvent(agent=me, stop=stop))
    agent.notify_human(
        f"Loop stopped: {stop.render_path()}: {stop.reason}. Nothing more is routed in "
        f"that task. Send /continue to {me.name} to let it go on (/continue 10 lets 10 "
        "more messages through before loops are checked again)."
    )


# ---------------------------------------------------------------------- /continue
def resume_chains(agent: ChainAgent, extra: int = 0) -> str:
    """`/continue [extra]`: open the stopped chains this agent took part in, and deliver
    what their loops held; `extra` messages then pass before loops are checked again."""
    if extra < 0:
        raise ValueError("extra must be 0 or more")
    ledger = ledger_of(agent)
    me = agent.myAddress
    chains = ledger.stopped_chains_of(me.name) if ledger is not None else []
    if ledger is None or not chains:
        return f"No stopped task involves {me.name}; there is nothing to continue."
    lines = []
    for chain_id in chains:
        stop, held = ledger.reopen(chain_id, grace=extra)
        if stop is None:
            continue
        for message in held:
            agent.system.route(agent.orchestrator, message)
        agent.notify_event(ChainResumedEvent(agent=me, stop=stop, delivered=len(held), grace=extra))
        delivered = (
            f"{len(held)} held message{'s' if len(held) != 1 else ''} delivered"
            if held
            else "nothing was held, so write to its members to give them work again"
        )
        how = f"stopped as a loop at {stop.render_path()}" if stop.kind == "loop" else stop.reason
        lines.append(f"Continued the task {how} ({delivered}).")
    return "\n".join(lines) or f"No stopped task involves {me.name}; there is nothing to continue."
