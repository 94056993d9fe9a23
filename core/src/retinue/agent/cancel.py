"""Run cancellation and the mid-run arrival notice, owned by one object per agent.

`Cancellation` holds every rule and every piece of state about stopping runs: what counts as
a cancel and who counts as an operator, the stamp each cancel gets on arrival (the turn and
the run then in flight: the only run it may interrupt is that run, or, when no run of the
turn was in flight, the turn's next run), the purge, the answers to idle and stale cancels,
and the hook that checks the mailbox before every model request (the agent's `RunHooks`,
which its runner calls from its one capability; per-run marks live in the run's state). What a
cascading cancel does beyond this agent (the sub-team, the chain's mail) is the host's
(`stop_downstream`, `drop_chain_mail`; see `retinue.agent.stops`); the hook also ends a
run whose task chain was closed for this agent meanwhile.

The kernel builds it for every agent, never a card, so an agent with no cards can still be
stopped. The agent's `Mailbox` flags cancels as they arrive, so the hook's checks cost what
they find, never the length of the queue.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol

from pydantic_ai import RunContext

from retinue.actors.address import ActorAddress
from retinue.actors.mailbox import Letter, Mailbox
from retinue.actors.messages import CancelMessage, Message
from retinue.agent.messages import AgentMessage
from retinue.llm.errors import RunInterruptedError
from retinue.llm.run_hooks import RunHooks, RunState

logger = logging.getLogger(__name__)

STOP_COMMAND = "/stop"

NO_RUN_IN_PROGRESS = "No run is in progress; there is nothing to stop."
"""The answer to a `/stop` that finds no run to stop."""

STALE_STOP = (
    "That stop arrived when the run it could have stopped was already over (or none was "
    "running); nothing was interrupted."
)
"""The answer to a cancel purged because the run it was stamped with had ended."""


def from_operator(message: Message) -> bool:
    """Sent by a person (a user proxy) or by code, never by another agent.

    Only such messages may command an agent: slash commands and `/stop` from an agent are
    ordinary text, so no model can fire a member or stop a run by writing one.
    """
    sender = message.sender
    return sender is None or sender.is_user_proxy


# `/stop` as the first word: `/stop`, `  /stop now`; never `/stopwatch`. Anchored, so a
# long content costs no more than its leading spaces.
_STOP_TEXT = re.compile(rf"\s*{re.escape(STOP_COMMAND)}(?:\s|$)")


def is_cancel(message: object) -> bool:
    """A `CancelMessage`, or `/stop` from a person (or from code); nothing else cancels.

    Words after `/stop` (`/stop now`, `/stop wrong file`) are for people to read; the text
    is still a cancel.
    """
    if isinstance(message, CancelMessage):
        return True
    if isinstance(message, AgentMessage) and _STOP_TEXT.match(message.content) is not None:
        return from_operator(message)
    return False


def is_cascading(message: object) -> bool:
    """A cancel that stops the work its target set going too: a person's `/stop`, or a
    `CancelMessage(cascade=True)`; a plain `CancelMessage()` stops one run only."""
    if isinstance(message, CancelMessage):
        return message.cascade
    return is_cancel(message)


def chain_target(message: object) -> str | None:
    """The chain a cascade's cancel is limited to (`CancelMessage.stop_chain`), if any."""
    return message.stop_chain if isinstance(message, CancelMessage) else None


ARRIVALS_NAMED = 5
"""How many arrivals a notice names; the rest are counted, so its length stays bounded."""


def is_arrival_notice(text: str) -> bool:
    """Whether `text` is a `render_arrival_notice`: timing (what arrived while a run was
    working), which a replay leaves out when it compares requests."""
    return text.startswith("[retinue] ") and " arrived while you were working: " in text


def render_arrival_notice(messages: Sequence[AgentMessage], how_to_read: str | None) -> str:
    """The notice that mail arrived mid-run; `how_to_read` comes from a card that reads mail.

    It names the first `ARRIVALS_NAMED` arrivals and counts the others: a flood of mail
    costs the run one short line, not a line that grows with the mailbox.
    """
    count = len(messages)
    who = ", ".join(
        f"{m.sender.name if m.sender else '@Operator'} ({m.type})"
        for m in messages[:ARRIVALS_NAMED]
    )
    if count > ARRIVALS_NAMED:
        who += f" and {count - ARRIVALS_NAMED:,} more"
    plural = "message" if count == 1 else "messages"
    then = (
        f"{how_to_read}, or they arrive as their own turn after this one."
        if how_to_read
        else "They arrive as their own turn after this one."
    )
    return f"[retinue] {count:,} new {plural} arrived while you were working: {who}. {then}"


class CancelHost(Protocol):
    """What `Cancellation` needs from its agent."""

    @property
    def mailbox(self) -> Mailbox:
        """The agent's mailbox."""
        ...

    def consume_flagged(self) -> list[Letter]:
        """Take the flagged (cancel) letters out of the mailbox, each reported as handled."""
        ...

    def running_run_id(self) -> str | None:
        """The run in flight, if any; read from any thread."""
        ...

    def interrupt_run(self, run_id: str) -> None:
        """Fire that run's cancellation token (ends even a long model request at once)."""
        ...

    def current_chain_id(self) -> str | None:
        """The task chain of the message being handled, if any; read from any thread."""
        ...

    def current_turn_id(self) -> str | None:
        """The id of the message whose turn is in progress, if any; read from any thread."""
        ...

    def chain_stopped(self, chain_id: str | None) -> bool:
        """Whether that chain was closed for this agent (a cascade reached it); O(1)."""
        ...

    def stop_downstream(self, cancel: Message, chain_id: str | None) -> bool:
        """Stop the work in `chain_id` (None: the latest this agent set going) downstream of
        this agent, and tell the person once; False when there was nothing to stop."""
        ...

    def drop_chain_mail(self, chain_id: str) -> None:
        """Drop this agent's queued mail of a stopped chain, each drop reported."""
        ...

    def send(self, recipient: ActorAddress, message: Message) -> None:
        """Send as the agent."""
        ...


class Cancellation(RunHooks):
    """One agent's cancellation: the rules, the stamps, the purge and the mailbox hook.

    As the agent's `RunHooks`, before every model request of a run it honours a cancel aimed
    at that run, ends a run whose chain was closed for this agent, and announces new mail.
    """

    idle_answer: ClassVar[str] = NO_RUN_IN_PROGRESS
    stale_answer: ClassVar[str] = STALE_STOP

    def __init__(self, host: CancelHost, how_to_read: str | None = None) -> None:
        self._host = host
        #: What the arrival notice tells the model about reading its mail (from a card).
        self.how_to_read = how_to_read
        #: The cancel that interrupted the latest run, until `take_interrupter` reads it.
        self._interrupter: Message | None = None
        host.mailbox.watch(self._on_arrival)

    # ------------------------------------------------------------------ arrival
    def _on_arrival(self, letter: Letter) -> bool:
        """Under the mailbox's lock: flag a cancel, stamp it with the turn and run in flight,
        fire it.

        The turn counts because a turn prepares before its run starts (the context update,
        the prompt): a cancel that arrives then is meant for the run about to start, and
        stops it at its first model request. A cascade's cancel (`stop_chain`) is stamped
        only when the turn in progress works for that chain: a run of another chain goes on.
        """
        message = letter.message
        if not is_cancel(message):
            return False
        host = self._host
        stamp = _Stamp(host.current_turn_id(), host.running_run_id())
        target = chain_target(message)
        if target is not None and host.current_chain_id() != target:
            stamp = _UNSTAMPED
        letter.note = stamp
        if stamp.run_id is not None:
            host.interrupt_run(stamp.run_id)
        return True

    # ------------------------------------------------------------------ the purge
    def pending(self) -> bool:
        """Whether a cancel waits in the mailbox (O(1))."""
        return self._host.mailbox.has_flagged

    def purge(self, run_id: str | None, turn_id: str | None = None) -> bool:
        """Take every pending cancel; True when one is aimed at run `run_id` of turn `turn_id`.

        Aimed at it: stamped with that run, or with that turn while no run of it was in flight.
        The others were aimed at runs that are over: each is answered as stale and interrupts
        nothing, so a cancel never carries over to the next run. A stale cascading cancel
        still stops the work its target set going; a stale cascade's cancel still drops the
        chain's mail.
        """
        live = False
        for letter in self._host.consume_flagged():
            if run_id is not None and _stamp_of(letter).aims_at(run_id, turn_id):
                live = True
                if self._interrupter is None or is_cascading(letter.message):
                    self._interrupter = letter.message  # a cascading one says the most
            else:
                self._answer_stale(letter.message)
        return live

    def take_interrupter(self) -> Message | None:
        """The cancel that interrupted the latest run (None: no cancel did), read once."""
        interrupter, self._interrupter = self._interrupter, None
        return interrupter

    def _answer_stale(self, message: Message) -> None:
        logger.info("stale cancel %s purged", message.id[:8])
        target = chain_target(message)
        if target is not None:
            self._host.drop_chain_mail(target)
            return
        if is_cascading(message) and self._host.stop_downstream(message, None):
            return
        if isinstance(message, AgentMessage) and message.sender is not None:
            self._host.send(
                message.sender,
                AgentMessage(type="notification", content=STALE_STOP, parent_id=message.id),
            )

    # ------------------------------------------------------------------ task chains
    def current_chain(self) -> str | None:
        """The task chain of the message the agent is handling (a run starting now works for it)."""
        return self._host.current_chain_id()

    def chain_closed(self, chain_id: str | None) -> bool:
        """Whether a cascade closed that chain for this agent: its run must end now."""
        return chain_id is not None and self._host.chain_stopped(chain_id)

    # ------------------------------------------------------------------ arrivals
    def mark(self) -> int:
        """Where the mailbox stands now: mail up to here is not news to a run starting now."""
        return self._host.mailbox.last_arrival

    def arrivals_since(self, mark: int) -> tuple[list[AgentMessage], int]:
        """Mail that arrived after `mark` and still waits (cancels aside), and the new mark."""
        letters, mark = self._host.mailbox.arrived_since(mark)
        return [lt.message for lt in letters if isinstance(lt.message, AgentMessage)], mark

    def arrival_notice(self, messages: Sequence[AgentMessage]) -> str:
        """The notice for these arrivals, pointing at the agent's mail reader if it has one."""
        return render_arrival_notice(messages, self.how_to_read)

    # ------------------------------------------------------------------ the run hooks
    def run_starting(self, state: RunState) -> None:
        """A run starts: mail so far is not its news, nor what stopped an earlier run."""
        self.take_interrupter()
        state.notes[_MARK] = self.mark()
        state.notes[_CHAIN] = self.current_chain()
        state.notes[_TURN] = self._host.current_turn_id()

    async def before_model_request(self, ctx: RunContext[Any], state: RunState) -> None:
        run_id = state.run_id
        notes = state.notes
        if self.pending() and self.purge(run_id, notes.get(_TURN)):
            raise RunInterruptedError(run_id)
        if self.chain_closed(notes.get(_CHAIN)):  # a cascade closed this run's chain
            raise RunInterruptedError(run_id)
        fresh, notes[_MARK] = self.arrivals_since(notes.get(_MARK, 0))
        if fresh:
            ctx.enqueue(self.arrival_notice(fresh), priority="asap")


_MARK = "retinue.mailbox_mark"
"""`RunState.notes` key: how far the run has announced the mail."""
_CHAIN = "retinue.chain"
"""`RunState.notes` key: the task chain the run works for."""
_TURN = "retinue.turn"
"""`RunState.notes` key: the turn (the message being handled) the run belongs to."""


@dataclass(frozen=True, slots=True)
class _Stamp:
    """What was in flight when a cancel arrived: the turn, and its run if one had started."""

    turn_id: str | None
    run_id: str | None

    def aims_at(self, run_id: str, turn_id: str | None) -> bool:
        """Whether this cancel may interrupt run `run_id` of turn `turn_id`."""
        if self.run_id is not None:
            return self.run_id == run_id
        return self.turn_id is not None and self.turn_id == turn_id


_UNSTAMPED = _Stamp(None, None)


def _stamp_of(letter: Letter) -> _Stamp:
    note = letter.note
    return note if isinstance(note, _Stamp) else _UNSTAMPED
