"""`ChainGuard`: one agent's side of the team's task chains, owned by one object per agent.

As `Cancellation` owns stopping runs, the guard owns what the team's task chains let this
agent do: whether a message gets its turn (and which waiting answers join it), whether a
turn's output may go and each of its messages (counting the turn's progress for the loop
detector), the mail a stop closes or a loop holds, and `/continue`. The rules are `stops`'
and `loops`'; the guard needs of its agent only the public `ChainHost`.
"""

from __future__ import annotations

import logging

from retinue.actors.address import ActorAddress
from retinue.actors.messages import Message
from retinue.agent import loops, stops
from retinue.agent.cancel import chain_target, from_operator, is_cascading
from retinue.agent.chain_host import ChainHost, current_chain
from retinue.agent.failures import FailureNotice
from retinue.agent.messages import AgentMessage

logger = logging.getLogger(__name__)


class ChainGuard:
    """Admits one agent's turns and outputs to their task chains; stops, holds and resumes."""

    def __init__(self, host: ChainHost) -> None:
        self._host = host
        #: Function tools the model called in the current turn: progress, to the loop detector.
        self._tool_calls = 0

    # ------------------------------------------------------------------ the turn
    def turn_started(self) -> None:
        """A model run of a turn starts: no progress yet."""
        self._tool_calls = 0

    def tool_called(self) -> None:
        """The model called a function tool: the turn made progress."""
        self._tool_calls += 1

    def admit_turn(self, message: Message) -> bool:
        """Whether `message` gets its turn: mail of a chain stopped for this agent does not."""
        return stops.admit_turn(self._host, message)

    def refusal(self) -> str | None:
        """Why this turn may route nothing (its chain was stopped for this agent), or None."""
        return stops.sender_refusal(self._host)

    def admit_output(self, recipient: ActorAddress, message: AgentMessage) -> str | None:
        """Why the team's task chains refuse this outbound message (a stop, a loop), or None."""
        progress = self._tool_calls > 0
        return loops.admit_output(self._host, recipient, message, progress=progress)

    def join_answers(self, message: AgentMessage, limit: int) -> list[AgentMessage]:
        """The answers of this message's chain waiting right behind it, for the same run.

        Only answers join an answer's turn (a request needs its own), only from the head of
        the mailbox (nothing overtakes other mail), at most `limit` (`answers_per_turn` less
        the message itself). Each is admitted to its chain as its own turn would be, and
        reported handled with this one.
        """
        if limit < 1 or message.type != "response" or message.chain_id is None:
            return []
        chain = message.chain_id

        def joins(waiting: Message) -> bool:
            return (
                isinstance(waiting, AgentMessage)
                and not isinstance(waiting, FailureNotice)
                and waiting.type == "response"
                and waiting.chain_id == chain
                and not (waiting.content.startswith("/") and from_operator(waiting))
            )

        taken = self._host.take_into_turn(joins, limit)
        return [m for m in taken if isinstance(m, AgentMessage) and self.admit_turn(m)]

    # ------------------------------------------------------------------ stops
    def is_stopped(self, chain_id: str | None) -> bool:
        """Whether a cascading stop closed that chain for this agent."""
        return stops.is_stopped(self._host, chain_id)

    def stop_downstream(
        self, cancel: Message, chain_id: str | None, *, interrupted: bool = False
    ) -> bool:
        """Stop what this agent handed on in `chain_id` (None: its latest), telling the person."""
        return stops.stop_downstream(self._host, cancel, chain_id, interrupted=interrupted)

    def drop_chain_mail(self, chain_id: str) -> int:
        """Drop this agent's queued mail of a chain a cascade stopped for it."""
        return stops.drop_chain_mail(self._host, chain_id)

    def report_interruption(self, cancel: Message | None) -> None:
        """Tell the person a run was stopped, once: a cascade's origin tells for everyone."""
        host = self._host
        chain_id = current_chain(host)
        target = chain_target(cancel)
        if target is not None or (cancel is None and self.is_stopped(chain_id)):
            logger.info("%s: run stopped by a cascade in its chain", host.myAddress.name)
            self.drop_chain_mail(target or chain_id or "")  # its queued mail of it, now
            return
        if cancel is not None and is_cascading(cancel):
            self.stop_downstream(cancel, chain_id, interrupted=True)
            return
        host.notify_human(stops.RUN_INTERRUPTED)

    # ------------------------------------------------------------------ /continue
    def continue_chain(self, extra: int = 0) -> str:
        """Let a task stopped as a loop (or by /stop) go on; extra: messages let through first.

        Opens every stopped task chain this agent took part in with fresh loop counts, and
        delivers the messages the loop held back. With `extra`, that many more messages pass
        before loops are checked again.
        """
        return loops.resume_chains(self._host, extra)
