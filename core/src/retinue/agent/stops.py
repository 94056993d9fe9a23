"""Stopped task chains as one agent meets them: the cascading stop and the closed chain.

The team's `ChainLedger` (reached through the agent's `Team` view, never by an ask) keeps
the counts; this module is what an agent does with them:

* **a cascading stop** (`stop_downstream`): a person's `/stop` closes the chain for its
  target and for every member the target delegated to, transitively, in one step of the
  ledger; then each of them gets a `CancelMessage(stop_chain=...)` (which ends a run of
  that chain at once and of no other chain) and the person is told once, with the list;
* **a closed chain** (`admit_turn`, `drop_chain_mail`, `sender_refusal`): a stopped
  member's queued or late mail of that chain is dropped, each drop an event, so a late
  reply cannot restart work downstream, and its late output routes nothing; a person
  writing into the chain opens it again.

Loops, the other way a chain stops, are `loops`'.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from retinue.actors.address import ActorAddress
from retinue.actors.messages import CancelMessage, Message
from retinue.agent.cancel import from_operator
from retinue.agent.chain_host import ChainHost, current_chain, ledger_of, tell
from retinue.agent.events import ChainMessageDroppedEvent, ChainResumedEvent, ChainStoppedEvent
from retinue.agent.messages import AgentMessage

logger = logging.getLogger(__name__)

RUN_INTERRUPTED = "Run interrupted."
"""What the person is told when a stop ended a run and nothing downstream had to stop."""


def member_list(addresses: Sequence[ActorAddress]) -> str:
    """`@A, @B and @C`."""
    listed = [a.name for a in addresses]
    if len(listed) <= 1:
        return "".join(listed)
    return ", ".join(listed[:-1]) + " and " + listed[-1]


# ---------------------------------------------------------------------- the cascading stop
def stop_downstream(
    agent: ChainHost, cancel: Message, chain_id: str | None, *, interrupted: bool
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
            tell(agent, cancel, RUN_INTERRUPTED)
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
        tell(agent, cancel, RUN_INTERRUPTED)
        return True
    logger.info("%s: stopped chain %s for %s", me.name, chain_id[:8], member_list(stopped))
    what = "its run and the work it handed on" if interrupted else "the work it handed on"
    plural = "message was" if dropped == 1 else "messages were"
    queued = f" {dropped} queued {plural} dropped." if dropped else ""
    tell(
        agent,
        cancel,
        f"Stopped {me.name}'s task ({what}): {member_list(stopped)}.{queued} Late mail of "
        f"that task to them is dropped; send /continue to {me.name} to open it again.",
    )
    return True


# ---------------------------------------------------------------------- closed chains
def is_stopped(agent: ChainHost, chain_id: str | None) -> bool:
    """Whether a stop closed that chain for `agent`."""
    ledger = ledger_of(agent)
    return ledger is not None and ledger.is_stopped(chain_id, agent.myAddress.name)


def drop_chain_mail(agent: ChainHost, chain_id: str) -> int:
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


def _report_drop(agent: ChainHost, message: Message, reason: str) -> None:
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


def admit_turn(agent: ChainHost, message: Message) -> bool:
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


def sender_refusal(agent: ChainHost) -> str | None:
    """Why nothing this turn routes may go (a `/stop` closed its chain for this agent), or None.

    Checked before any recipient is resolved, so a stopped member's late output hires nobody.
    """
    ledger = ledger_of(agent)
    chain_id = current_chain(agent)
    if ledger is None or chain_id is None or not ledger.is_stopped(chain_id, agent.myAddress.name):
        return None
    stop = ledger.stop_of(chain_id)
    return f"this task chain was {stop.reason if stop is not None else 'stopped'}"
