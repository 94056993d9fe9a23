"""Loops in task chains as one agent meets them: output admission, held mail, `/continue`.

The team's `ChainLedger` counts every message a turn routes (`admit_output`); one it
refuses is skipped like an unreachable recipient, and the message that stops a loop tells
the person the path, once. The refused messages of a loop are held for `/continue
[extra]` (`resume_chains`), which opens the stopped chains this agent took part in, with
fresh counts (and `extra` messages let through unchecked), and delivers what was held.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

from retinue.actors.address import ActorAddress
from retinue.agent.chain_host import ChainHost, current_chain, ledger_of
from retinue.agent.events import ChainMessageHeldEvent, ChainResumedEvent, ChainStoppedEvent
from retinue.agent.messages import AgentMessage

if TYPE_CHECKING:
    from retinue.team.chains import ChainStop

logger = logging.getLogger(__name__)


def admit_output(
    agent: ChainHost, recipient: ActorAddress, message: AgentMessage, *, progress: bool
) -> str | None:
    """Count a message a turn is about to route; why it may not go, or None.

    The message that stops a loop tells the person the path, once; a refused message of a
    loop is kept (stamped as it would have gone) for `/continue`.
    """
    ledger = ledger_of(agent)
    chain_id = current_chain(agent)
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


def _loop_found(agent: ChainHost, stop: ChainStop) -> None:
    me = agent.myAddress
    logger.warning("%s: loop in chain %s: %s", me.name, stop.chain_id[:8], stop.reason)
    agent.notify_event(ChainStoppedEvent(agent=me, stop=stop))
    agent.notify_human(
        f"Loop stopped: {stop.render_path()}: {stop.reason}. Nothing more is routed in "
        f"that task. Send /continue to {me.name} to let it go on (/continue 10 lets 10 "
        "more messages through before loops are checked again)."
    )


def resume_chains(agent: ChainHost, extra: int = 0) -> str:
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
