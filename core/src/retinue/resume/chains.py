"""A resumed team's task chains, replayed from its record into the orchestrator's ledger.

Without this a resume would forget every stop: a person's `/stop` would no longer keep the
stopped members' late mail out (the messages they were owed would be handled again), a loop
would lose the messages it held for `/continue`, and a `/stop` after the resume would not
reach the members given work before it. The ledger keeps these in memory only; the record
has what they were made of, in order:

- every delivery between agents (`SentMessage`): who delegated to whom in which chain;
- `ChainStoppedEvent`: a `/stop` or a loop closed a chain;
- `ChainMessageHeldEvent`: a loop-stopped chain kept a refused message;
- `ChainResumedEvent`: a person opened it again (what it held was delivered or dropped).

The loop detector's counts are not replayed: they start afresh, as after `/continue`, and a
`/continue N`'s grace is not given again.
"""

from __future__ import annotations

from collections.abc import Iterable

from retinue.actors.messages import EventMessage, Message, SentMessage
from retinue.agent.events import ChainMessageHeldEvent, ChainResumedEvent, ChainStoppedEvent
from retinue.agent.messages import AgentMessage
from retinue.team.chains import ChainLedger


def replay_chains(ledger: ChainLedger, history: Iterable[Message]) -> int:
    """Bring `ledger` to where the record's `history` left the team's chains.

    Returns how many chains are stopped once it is replayed (for the resume's log line).
    """
    stopped: set[str] = set()
    for item in history:
        if isinstance(item, SentMessage):
            sent = item.message
            if (
                isinstance(sent, AgentMessage)
                and sent.chain_id
                and sent.sender is not None
                and sent.recipient is not None
                and not sent.sender.is_user_proxy
            ):
                ledger.remember(sent.chain_id, sent.sender, sent.recipient, sent.type)
            continue
        event = item.event if isinstance(item, EventMessage) else None
        if isinstance(event, ChainStoppedEvent):
            ledger.restore_stop(event.stop)
            stopped.add(event.stop.chain_id)
        elif isinstance(event, ChainMessageHeldEvent):
            ledger.hold(event.chain_id, event.message)
        elif isinstance(event, ChainResumedEvent):
            ledger.reopen(event.stop.chain_id)  # no grace: loops are watched from here
            stopped.discard(event.stop.chain_id)
    return sum(1 for chain_id in stopped if ledger.stop_of(chain_id) is not None)
